// generated from catalog/texts/runtime.yaml; do not edit by hand — run `cargo build` (or `cargo run -p codegen`)
// Included by runtime/model/src/texts.rs, which says what the table is for.

/// One text of the runtime, by its key in `catalog/texts/runtime.yaml`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Text {
    /// `error_insufficient_scope`: "The access token lacks the scope this needs"
    ErrorInsufficientScope,
    /// `error_insufficient_permission`: "Your role lacks the permission this needs"
    ErrorInsufficientPermission,
    /// `error_workspace_required`: "This connection has no default workspace; set one, or use the tools with workspace_id"
    ErrorWorkspaceRequired,
    /// `error_content_too_large`: "The file is larger than the resource size limit"
    ErrorContentTooLarge,
    /// `error_upstream_error`: "The Kobana API answered with an error"
    ErrorUpstreamError,
    /// `error_sandbox_error`: "The sandbox's local storage failed (an unusable data directory or a full disk)"
    ErrorSandboxError,
    /// `error_audit_unavailable`: "The audit record cannot be written (a full disk or an unwritable file); nothing ran"
    ErrorAuditUnavailable,
    /// `error_invalid_arguments`: "The arguments do not match the tool's input schema"
    ErrorInvalidArguments,
    /// `error_invalid_state`: "The action is not allowed in the record's current state"
    ErrorInvalidState,
    /// `error_not_found`: "No such record"
    ErrorNotFound,
    /// `error_not_available`: "This record type has no operation in the Kobana API yet"
    ErrorNotAvailable,
    /// `error_confirmation_required`: "This tool is destructive and needs a confirmation this client cannot give: use a 2026-07-28 client that declares form elicitation"
    ErrorConfirmationRequired,
    /// `error_confirmation_replayed`: "This confirmation was already used; it does not run again"
    ErrorConfirmationReplayed,
    /// `error_confirmation_unavailable`: "The server cannot record the confirmation right now; nothing was run, try again later"
    ErrorConfirmationUnavailable,
    /// `error_confirmation_quota_exceeded`: "You have too many confirmations or calls pending at once; nothing was run. Let the pending ones finish or expire, then try again"
    ErrorConfirmationQuotaExceeded,
    /// `error_outcome_unknown`: "The Kobana API did not say whether this ran: it may have run. Check the record (list or get it) before doing anything else. Calling this tool again with the same arguments within the idempotency window sends the same idempotency key, so the API answers the first result instead of running it twice"
    ErrorOutcomeUnknown,
    /// `error_user_declined`: "You declined the confirmation; nothing was changed"
    ErrorUserDeclined,
    /// `replay_notice`: "This approval was already used."
    ReplayNotice,
    /// `replay_ran`: "The action ran once with it (its result was returned then); read the record to see it."
    ReplayRan,
    /// `replay_failed`: "The Kobana API refused the action then, so nothing changed."
    ReplayFailed,
    /// `replay_replayed`: "The Kobana API answered it with the result of an earlier identical call, so nothing new ran then."
    ReplayReplayed,
    /// `replay_unknown`: "The outcome of that call is unknown: the action may have run. Check the record (list or get it) first; running the same call again within the idempotency window sends the same idempotency key, so the API answers the first result instead of running it twice."
    ReplayUnknown,
    /// `replay_unrecorded`: "This server has no recorded outcome for it (the call may still be running, or was interrupted): the action may have run. Check the record (list or get it) first; running the same call again within the idempotency window sends the same idempotency key, so the API answers the first result instead of running it twice."
    ReplayUnrecorded,
    /// `form_cancelled`: "You cancelled the confirmation request without answering; nothing was changed"
    FormCancelled,
    /// `form_not_confirmed`: "You sent the form without ticking the confirmation; nothing was changed"
    FormNotConfirmed,
    /// `form_ask`: "Do you confirm this action?"
    FormAsk,
    /// `form_action`: "Action"
    FormAction,
    /// `form_record`: "Record"
    FormRecord,
    /// `form_every_record`: "every record the details below select"
    FormEveryRecord,
    /// `form_why`: "Why we ask: “{action}” cannot be undone."
    FormWhy,
    /// `form_why_update`: "Why we ask: “{action}” changes where data or money goes; check the before and after."
    FormWhyUpdate,
    /// `form_fields`: "Details that will be sent"
    FormFields,
    /// `form_hidden`: "(hidden)"
    FormHidden,
    /// `form_facts_unread`: "The record's details could not be fetched right now: check them before you confirm."
    FormFactsUnread,
    /// `form_reference_unread`: "{id} (this record could not be read right now)"
    FormReferenceUnread,
    /// `form_reference_missing`: "{id} (does not exist or is not within your reach)"
    FormReferenceMissing,
    /// `confirm_not_found`: "{record} {id} does not exist or is not within your reach; nothing was asked or run"
    ConfirmNotFound,
    /// `confirm_terminal`: "{record} {id} is “{state}”, a state in which “{action}” is not possible; nothing was asked or run"
    ConfirmTerminal,
    /// `form_no_fields`: "Details: none"
    FormNoFields,
    /// `form_yes`: "yes"
    FormYes,
    /// `form_no`: "no"
    FormNo,
    /// `form_field_title`: "Run"
    FormFieldTitle,
    /// `form_field_description`: "Yes: the action runs once, with the details shown; No: nothing is changed."
    FormFieldDescription,
    /// `output_schema_mismatch`: "The operation was carried out (HTTP 2xx) but its answer does not match the declared output schema at `{path}`: {problem}. Do not repeat the call to retry it. The answer as it came is in `answer`."
    OutputSchemaMismatch,
    /// `unknown_tool`: "Unknown tool: {name}"
    UnknownTool,
    /// `replayed_note`: "Note: the Kobana API answered with the stored result of an earlier identical call (same tool, arguments, person, organization and workspace) instead of running it again, so nothing new ran now. The result below is that earlier call's. To run it again on purpose, call the tool again: the next call is a new one."
    ReplayedNote,
    /// `task_unknown`: "Unknown task: {id} (no such task for this caller, or its TTL ran out)"
    TaskUnknown,
    /// `task_cancelled_by_client`: "Cancelled by the client"
    TaskCancelledByClient,
    /// `task_cancelled_after_send`: "Cancelled after the call of {tool} was sent to the Kobana API; the call finished anyway, and its result is attached"
    TaskCancelledAfterSend,
    /// `task_progress`: "{tool}: the request is being processed ({done}% done)"
    TaskProgress,
    /// `budget_cut`: "Cut to fit the result budget of {tokens} tokens (about {bytes} bytes): the first {shown} of the {total} records of this answer are shown, whole."
    BudgetCut,
    /// `budget_rest_by_page`: "To get the rest, call {tool} again with per_page={size} and page={next}{overlap}, and so on; or narrow the filter so fewer records match."
    BudgetRestByPage,
    /// `budget_overlap`: " (its first records were already shown here)"
    BudgetOverlap,
    /// `budget_rest_by_filter`: "To get the rest, narrow the filter so fewer records match."
    BudgetRestByFilter,
    /// `budget_whole`: "The whole answer is the resource {uri}."
    BudgetWhole,
    /// `rate_limited`: "Rate limit `{name}` reached: at most {max} {who} per {window} s ({flag}); retry in {secs} s"
    RateLimited,
    /// `rate_limited_ip`: "requests from this client address"
    RateLimitedIp,
    /// `rate_limited_reads`: "read calls for this identity"
    RateLimitedReads,
    /// `rate_limited_writes`: "write calls for this identity"
    RateLimitedWrites,
    /// `selection_unknown_toolset`: "unknown toolset `{name}`; known: {known}"
    SelectionUnknownToolset,
    /// `selection_unknown_tool`: "unknown tool `{name}` (not a tool of {product})"
    SelectionUnknownTool,
    /// `selection_header_not_text`: "the {header} header is not visible ASCII"
    SelectionHeaderNotText,
    /// `selection_not_boolean`: "the {header} header must be true or false, not {value}"
    SelectionNotBoolean,
    /// `selection_refused`: "Invalid tool selection: {why}"
    SelectionRefused,
    /// `discovery_search_title`: "Search the tools"
    DiscoverySearchTitle,
    /// `discovery_describe_title`: "Describe tools"
    DiscoveryDescribeTitle,
    /// `discovery_call_title`: "Call a tool"
    DiscoveryCallTitle,
    /// `discovery_search_description`: "Searches the tools of {title} by what they do: ranked over their names, titles, descriptions and argument names. Answers the best matches (name, title, a short description, whether they only read or are destructive). Then describe the chosen ones with {describe} and run one with {call}."
    DiscoverySearchDescription,
    /// `discovery_describe_description`: "The full descriptors of the named tools of {title}: description, input schema, output schema and annotations, as tools/list would give them. Call them with {call}."
    DiscoveryDescribeDescription,
    /// `discovery_call_description`: "Runs one tool of {title} by name with its arguments, exactly as a direct call would: the same permissions, argument checks and confirmation of destructive tools. Describe the tool first with {describe} to know its arguments."
    DiscoveryCallDescription,
    /// `discovery_query`: "What you want to do, in words (any of the catalog's languages), e.g. \"cancel a billet\"."
    DiscoveryQuery,
    /// `discovery_limit`: "Most results (default {default})."
    DiscoveryLimit,
    /// `discovery_names`: "Tool names, as the search answered them."
    DiscoveryNames,
    /// `discovery_name`: "The tool's name."
    DiscoveryName,
    /// `discovery_arguments`: "The tool's arguments, as its input schema says."
    DiscoveryArguments,
    /// `discovery_name_required`: "argument `name` (a string) is required"
    DiscoveryNameRequired,
    /// `discovery_arguments_object`: "argument `arguments` must be an object"
    DiscoveryArgumentsObject,
    /// `discovery_query_required`: "argument `query` (a string) is required"
    DiscoveryQueryRequired,
    /// `discovery_query_too_long`: "argument `query` is longer than {max} bytes; search with a few words"
    DiscoveryQueryTooLong,
    /// `discovery_limit_range`: "argument `limit` must be an integer from 1 to {max}"
    DiscoveryLimitRange,
    /// `discovery_names_strings`: "argument `names` must hold strings"
    DiscoveryNamesStrings,
    /// `discovery_names_list`: "argument `names` must be a list of 1 to {max} tool names"
    DiscoveryNamesList,
    /// `protocol_method_not_found`: "Method not found: {method}"
    ProtocolMethodNotFound,
    /// `protocol_call_needs_name`: "Invalid params: tools/call needs `name` (a string)"
    ProtocolCallNeedsName,
    /// `protocol_prompt_needs_name`: "Invalid params: prompts/get needs `name` (a string)"
    ProtocolPromptNeedsName,
    /// `protocol_arguments_strings`: "Invalid params: `arguments` must be an object of strings"
    ProtocolArgumentsStrings,
    /// `protocol_arguments_object`: "Invalid params: `arguments` must be an object"
    ProtocolArgumentsObject,
    /// `protocol_log_level`: "Invalid params: level must be one of {levels}"
    ProtocolLogLevel,
    /// `protocol_uri_required`: "Invalid params: uri (a string) is required"
    ProtocolUriRequired,
    /// `protocol_invalid_params`: "Invalid params: {detail}"
    ProtocolInvalidParams,
    /// `protocol_invalid_cursor`: "Invalid cursor"
    ProtocolInvalidCursor,
    /// `protocol_unknown_prompt`: "Unknown prompt: {name}"
    ProtocolUnknownPrompt,
    /// `protocol_prompt_unavailable`: "Prompt {name} is not available: it uses tools this caller cannot call"
    ProtocolPromptUnavailable,
    /// `protocol_prompt_argument_missing`: "Missing required argument `{argument}` of prompt {name}"
    ProtocolPromptArgumentMissing,
    /// `protocol_prompt_argument_empty`: "Invalid argument `{argument}` of prompt {name}: it is required and must not be empty"
    ProtocolPromptArgumentEmpty,
    /// `protocol_prompt_argument_not_string`: "Invalid argument `{argument}`: prompt arguments are strings"
    ProtocolPromptArgumentNotString,
    /// `protocol_prompt_argument_not_date`: "Invalid argument `{argument}`: {value} is not a date (YYYY-MM-DD)"
    ProtocolPromptArgumentNotDate,
    /// `protocol_prompt_argument_not_month`: "Invalid argument `{argument}`: {value} is not a month (YYYY-MM)"
    ProtocolPromptArgumentNotMonth,
    /// `protocol_resource_not_found`: "Resource not found: {uri}"
    ProtocolResourceNotFound,
    /// `protocol_request_state_invalid`: "Invalid or expired requestState: {detail}"
    ProtocolRequestStateInvalid,
    /// `protocol_capability_missing`: "This request needs the client capability `{capability}`, which the request did not declare"
    ProtocolCapabilityMissing,
    /// `protocol_tasks_extension_missing`: "{method} needs the client capability {capability} (the Tasks extension), which the request did not declare"
    ProtocolTasksExtensionMissing,
    /// `protocol_session_not_found`: "Session not found"
    ProtocolSessionNotFound,
    /// `protocol_prompt_no_argument`: "Prompt {name} has no argument `{argument}`"
    ProtocolPromptNoArgument,
    /// `protocol_unknown_template`: "Unknown resource template: {uri}"
    ProtocolUnknownTemplate,
    /// `protocol_header_required_for`: "Header mismatch: the {header} header is required for {method}"
    ProtocolHeaderRequiredFor,
    /// `protocol_header_required`: "Header mismatch: the {header} header is required"
    ProtocolHeaderRequired,
    /// `protocol_unknown_resource`: "Unknown resource or template: {uri}"
    ProtocolUnknownResource,
    /// `protocol_completion_needs_ref`: "Invalid params: completion/complete needs `ref` and `argument.name`"
    ProtocolCompletionNeedsRef,
    /// `protocol_completion_ref_type`: "Invalid params: `ref.type` must be `ref/prompt` or `ref/resource`"
    ProtocolCompletionRefType,
    /// `protocol_read_needs_uri`: "Invalid params: resources/read needs `uri` (a string)"
    ProtocolReadNeedsUri,
    /// `protocol_params_object`: "Invalid params: \"params\" must be an object"
    ProtocolParamsObject,
    /// `protocol_cursor_not_string`: "Invalid cursor: it must be a string"
    ProtocolCursorNotString,
    /// `protocol_request_state_not_string`: "Invalid requestState: it must be a string"
    ProtocolRequestStateNotString,
    /// `protocol_request_state_foreign`: "Invalid requestState: it was issued for a different request, arguments or caller"
    ProtocolRequestStateForeign,
    /// `detail_nothing_to_update`: "nothing to update: give at least one field of {record} ({fields})"
    DetailNothingToUpdate,
    /// `detail_workspace_needed`: "{product} records live in a workspace: pass `workspace_id`, or set a default workspace for the connection"
    DetailWorkspaceNeeded,
    /// `detail_workspace_unreachable`: "workspace `{workspace}` (not one you can reach)"
    DetailWorkspaceUnreachable,
    /// `detail_no_schema`: "no schema named `{name}`; known: {known}"
    DetailNoSchema,
    /// `hint_owner_key`: "The address of {record} takes the uid of {owner} (`{id_arg}`), not the record's own `uid`: find it with {list_tool}, or in the record's `{id_arg}` field"
    HintOwnerKey,
    /// `hint_owner_key_found_uri`: "`{given}` is the own `uid` of {record} of {owner} `{key}`: read {uri}"
    HintOwnerKeyFoundUri,
    /// `hint_owner_key_found_tool`: "`{given}` is the own `uid` of {record} of {owner} `{key}`: call {tool} with `{id_arg}` = `{key}`"
    HintOwnerKeyFoundTool,
    /// `detail_not_listed`: "`{id}` (not among the records {list} lists)"
    DetailNotListed,
    /// `detail_not_listed_recent`: "`{id}` (not among the {count} most recent records {list} lists; the API has no read by id)"
    DetailNotListedRecent,
    /// `detail_limitation_note`: "{tool}: see the limitation note of its resource template in the product docs"
    DetailLimitationNote,
    /// `detail_argument_required_path`: "`{argument}` is required (path of {path})"
    DetailArgumentRequiredPath,
    /// `detail_argument_required`: "`{argument}` is required"
    DetailArgumentRequired,
    /// `sandbox_positive_integer`: "`{name}` must be a positive integer, got {value}"
    SandboxPositiveInteger,
    /// `sandbox_date`: "`{name}` must be a date (YYYY-MM-DD), got {value}"
    SandboxDate,
    /// `sandbox_record_id`: "`{name}` must be a record id (string), got {value}"
    SandboxRecordId,
    /// `sandbox_group_by_list`: "`group_by` must be a comma-separated list of dimensions, got {value}"
    SandboxGroupByList,
    /// `sandbox_group_by_dimension`: "`group_by`: `{dimension}` is not a dimension; use day, week, month or one of {fields}"
    SandboxGroupByDimension,
    /// `sandbox_cannot_select`: "`{tool}` cannot select {record} by {unknown}; use {fields}"
    SandboxCannotSelect,
    /// `sandbox_needs_filter`: "`{tool}` applies to every record its arguments select: give at least one filter"
    SandboxNeedsFilter,
    /// `sandbox_state`: "cannot {action} {record} `{id}`: its {field} is `{state}`; allowed only when {field} is {from}"
    SandboxState,
    /// `sandbox_empty`: "`{name}` must not be empty"
    SandboxEmpty,
    /// `sandbox_not_in_list`: "{record} `{id}`: {value} is not in its `{field}`"
    SandboxNotInList,
    /// `sandbox_names_missing`: "`{argument}` names {target} `{id}`, which does not exist in this organization (or workspace)"
    SandboxNamesMissing,
    /// `sandbox_idempotency_key_reused`: "this idempotency key was first used for {tool}; a new request needs a new key"
    SandboxIdempotencyKeyReused,
    /// `sandbox_none_in_scope`: "{record}: this scope holds no record of it"
    SandboxNoneInScope,
    /// `sandbox_none_recorded`: "{record}: none recorded"
    SandboxNoneRecorded,
    /// `sandbox_none_for`: "{record} for {given}"
    SandboxNoneFor,
    /// `auth_missing_token`: "no bearer token was given"
    AuthMissingToken,
    /// `auth_invalid_token`: "the bearer token is invalid or expired"
    AuthInvalidToken,
    /// `auth_unreachable`: "the identity service is unreachable: {why}"
    AuthUnreachable,
    /// `stdio_token_rejected`: "{variable} was not accepted: {why}"
    StdioTokenRejected,
    /// `stdio_token_unchecked`: "the identity service is unreachable ({why}); {variable} could not be checked"
    StdioTokenUnchecked,
    /// `stdio_request_not_run`: "{why}: the request was not run; the next request asks the identity service again"
    StdioRequestNotRun,
    /// `auth_foreign_workspace`: "workspace {workspace} is not reachable by this person"
    AuthForeignWorkspace,
    /// `validation_at_argument`: "argument `{argument}`: {problem}"
    ValidationAtArgument,
    /// `validation_at_root`: "arguments: {problem}"
    ValidationAtRoot,
    /// `validation_required`: "argument `{argument}` is required"
    ValidationRequired,
    /// `validation_unknown`: "unknown argument(s): {names}"
    ValidationUnknown,
    /// `validation_type`: "{value} is not of type {expected}"
    ValidationType,
    /// `validation_min_length`: "{value} is shorter than {limit} characters"
    ValidationMinLength,
    /// `validation_max_length`: "{value} is longer than {limit} characters"
    ValidationMaxLength,
    /// `validation_minimum`: "{value} is less than the minimum of {limit}"
    ValidationMinimum,
    /// `validation_maximum`: "{value} is greater than the maximum of {limit}"
    ValidationMaximum,
    /// `validation_exclusive_minimum`: "{value} must be greater than {limit}"
    ValidationExclusiveMinimum,
    /// `validation_exclusive_maximum`: "{value} must be less than {limit}"
    ValidationExclusiveMaximum,
    /// `validation_enum`: "{value} is not one of {options}"
    ValidationEnum,
    /// `validation_const`: "{value} must be {expected}"
    ValidationConst,
    /// `validation_format`: "{value} is not in the {format} format"
    ValidationFormat,
    /// `validation_pattern`: "{value} does not match the pattern {pattern}"
    ValidationPattern,
    /// `validation_min_items`: "the list has fewer than {limit} items"
    ValidationMinItems,
    /// `validation_max_items`: "the list has more than {limit} items"
    ValidationMaxItems,
    /// `validation_unique_items`: "the list has repeated items"
    ValidationUniqueItems,
    /// `validation_other`: "the value {value} does not fit the tool's schema"
    ValidationOther,
    /// `type_string`: "string"
    TypeString,
    /// `type_integer`: "integer"
    TypeInteger,
    /// `type_number`: "number"
    TypeNumber,
    /// `type_boolean`: "boolean"
    TypeBoolean,
    /// `type_object`: "object"
    TypeObject,
    /// `type_array`: "array"
    TypeArray,
    /// `type_null`: "null"
    TypeNull,
    /// `http_no_endpoint`: "no MCP endpoint at {path}; this server serves {paths}"
    HttpNoEndpoint,
    /// `resources_list_incomplete`: "Incomplete list: the recent records of {types} did not come from the Kobana API this time; they can still be read by URI. List again later."
    ResourcesListIncomplete,
    /// `upstream_unpublished_api`: "Kobana publishes no API for {products}: the paths this server would call are this project's own, and the Kobana API does not serve them. Serve these products from the embedded sandbox (without --upstream) or, if your upstream implements these paths, say so with --upstream-serves {list} (KOBANA_UPSTREAM_SERVES, or serves in the config file's upstream section)"
    UpstreamUnpublishedApi,
}

impl Text {
    /// Every text, in the table's order.
    pub const ALL: [Text; 178] = [
        Text::ErrorInsufficientScope,
        Text::ErrorInsufficientPermission,
        Text::ErrorWorkspaceRequired,
        Text::ErrorContentTooLarge,
        Text::ErrorUpstreamError,
        Text::ErrorSandboxError,
        Text::ErrorAuditUnavailable,
        Text::ErrorInvalidArguments,
        Text::ErrorInvalidState,
        Text::ErrorNotFound,
        Text::ErrorNotAvailable,
        Text::ErrorConfirmationRequired,
        Text::ErrorConfirmationReplayed,
        Text::ErrorConfirmationUnavailable,
        Text::ErrorConfirmationQuotaExceeded,
        Text::ErrorOutcomeUnknown,
        Text::ErrorUserDeclined,
        Text::ReplayNotice,
        Text::ReplayRan,
        Text::ReplayFailed,
        Text::ReplayReplayed,
        Text::ReplayUnknown,
        Text::ReplayUnrecorded,
        Text::FormCancelled,
        Text::FormNotConfirmed,
        Text::FormAsk,
        Text::FormAction,
        Text::FormRecord,
        Text::FormEveryRecord,
        Text::FormWhy,
        Text::FormWhyUpdate,
        Text::FormFields,
        Text::FormHidden,
        Text::FormFactsUnread,
        Text::FormReferenceUnread,
        Text::FormReferenceMissing,
        Text::ConfirmNotFound,
        Text::ConfirmTerminal,
        Text::FormNoFields,
        Text::FormYes,
        Text::FormNo,
        Text::FormFieldTitle,
        Text::FormFieldDescription,
        Text::OutputSchemaMismatch,
        Text::UnknownTool,
        Text::ReplayedNote,
        Text::TaskUnknown,
        Text::TaskCancelledByClient,
        Text::TaskCancelledAfterSend,
        Text::TaskProgress,
        Text::BudgetCut,
        Text::BudgetRestByPage,
        Text::BudgetOverlap,
        Text::BudgetRestByFilter,
        Text::BudgetWhole,
        Text::RateLimited,
        Text::RateLimitedIp,
        Text::RateLimitedReads,
        Text::RateLimitedWrites,
        Text::SelectionUnknownToolset,
        Text::SelectionUnknownTool,
        Text::SelectionHeaderNotText,
        Text::SelectionNotBoolean,
        Text::SelectionRefused,
        Text::DiscoverySearchTitle,
        Text::DiscoveryDescribeTitle,
        Text::DiscoveryCallTitle,
        Text::DiscoverySearchDescription,
        Text::DiscoveryDescribeDescription,
        Text::DiscoveryCallDescription,
        Text::DiscoveryQuery,
        Text::DiscoveryLimit,
        Text::DiscoveryNames,
        Text::DiscoveryName,
        Text::DiscoveryArguments,
        Text::DiscoveryNameRequired,
        Text::DiscoveryArgumentsObject,
        Text::DiscoveryQueryRequired,
        Text::DiscoveryQueryTooLong,
        Text::DiscoveryLimitRange,
        Text::DiscoveryNamesStrings,
        Text::DiscoveryNamesList,
        Text::ProtocolMethodNotFound,
        Text::ProtocolCallNeedsName,
        Text::ProtocolPromptNeedsName,
        Text::ProtocolArgumentsStrings,
        Text::ProtocolArgumentsObject,
        Text::ProtocolLogLevel,
        Text::ProtocolUriRequired,
        Text::ProtocolInvalidParams,
        Text::ProtocolInvalidCursor,
        Text::ProtocolUnknownPrompt,
        Text::ProtocolPromptUnavailable,
        Text::ProtocolPromptArgumentMissing,
        Text::ProtocolPromptArgumentEmpty,
        Text::ProtocolPromptArgumentNotString,
        Text::ProtocolPromptArgumentNotDate,
        Text::ProtocolPromptArgumentNotMonth,
        Text::ProtocolResourceNotFound,
        Text::ProtocolRequestStateInvalid,
        Text::ProtocolCapabilityMissing,
        Text::ProtocolTasksExtensionMissing,
        Text::ProtocolSessionNotFound,
        Text::ProtocolPromptNoArgument,
        Text::ProtocolUnknownTemplate,
        Text::ProtocolHeaderRequiredFor,
        Text::ProtocolHeaderRequired,
        Text::ProtocolUnknownResource,
        Text::ProtocolCompletionNeedsRef,
        Text::ProtocolCompletionRefType,
        Text::ProtocolReadNeedsUri,
        Text::ProtocolParamsObject,
        Text::ProtocolCursorNotString,
        Text::ProtocolRequestStateNotString,
        Text::ProtocolRequestStateForeign,
        Text::DetailNothingToUpdate,
        Text::DetailWorkspaceNeeded,
        Text::DetailWorkspaceUnreachable,
        Text::DetailNoSchema,
        Text::HintOwnerKey,
        Text::HintOwnerKeyFoundUri,
        Text::HintOwnerKeyFoundTool,
        Text::DetailNotListed,
        Text::DetailNotListedRecent,
        Text::DetailLimitationNote,
        Text::DetailArgumentRequiredPath,
        Text::DetailArgumentRequired,
        Text::SandboxPositiveInteger,
        Text::SandboxDate,
        Text::SandboxRecordId,
        Text::SandboxGroupByList,
        Text::SandboxGroupByDimension,
        Text::SandboxCannotSelect,
        Text::SandboxNeedsFilter,
        Text::SandboxState,
        Text::SandboxEmpty,
        Text::SandboxNotInList,
        Text::SandboxNamesMissing,
        Text::SandboxIdempotencyKeyReused,
        Text::SandboxNoneInScope,
        Text::SandboxNoneRecorded,
        Text::SandboxNoneFor,
        Text::AuthMissingToken,
        Text::AuthInvalidToken,
        Text::AuthUnreachable,
        Text::StdioTokenRejected,
        Text::StdioTokenUnchecked,
        Text::StdioRequestNotRun,
        Text::AuthForeignWorkspace,
        Text::ValidationAtArgument,
        Text::ValidationAtRoot,
        Text::ValidationRequired,
        Text::ValidationUnknown,
        Text::ValidationType,
        Text::ValidationMinLength,
        Text::ValidationMaxLength,
        Text::ValidationMinimum,
        Text::ValidationMaximum,
        Text::ValidationExclusiveMinimum,
        Text::ValidationExclusiveMaximum,
        Text::ValidationEnum,
        Text::ValidationConst,
        Text::ValidationFormat,
        Text::ValidationPattern,
        Text::ValidationMinItems,
        Text::ValidationMaxItems,
        Text::ValidationUniqueItems,
        Text::ValidationOther,
        Text::TypeString,
        Text::TypeInteger,
        Text::TypeNumber,
        Text::TypeBoolean,
        Text::TypeObject,
        Text::TypeArray,
        Text::TypeNull,
        Text::HttpNoEndpoint,
        Text::ResourcesListIncomplete,
        Text::UpstreamUnpublishedApi,
    ];

    /// The key in the table.
    pub const fn key(self) -> &'static str {
        KEYS[self as usize]
    }

    /// The text in `locale`, its placeholders (`{tool}`) as they are.
    pub const fn get(self, locale: Locale) -> &'static str {
        TEXTS[self as usize][locale.index()]
    }

    /// The placeholders every locale's text holds, in the English text's order.
    pub const fn placeholders(self) -> &'static [&'static str] {
        PLACEHOLDERS[self as usize]
    }
}

const KEYS: [&str; 178] = [
    "error_insufficient_scope",
    "error_insufficient_permission",
    "error_workspace_required",
    "error_content_too_large",
    "error_upstream_error",
    "error_sandbox_error",
    "error_audit_unavailable",
    "error_invalid_arguments",
    "error_invalid_state",
    "error_not_found",
    "error_not_available",
    "error_confirmation_required",
    "error_confirmation_replayed",
    "error_confirmation_unavailable",
    "error_confirmation_quota_exceeded",
    "error_outcome_unknown",
    "error_user_declined",
    "replay_notice",
    "replay_ran",
    "replay_failed",
    "replay_replayed",
    "replay_unknown",
    "replay_unrecorded",
    "form_cancelled",
    "form_not_confirmed",
    "form_ask",
    "form_action",
    "form_record",
    "form_every_record",
    "form_why",
    "form_why_update",
    "form_fields",
    "form_hidden",
    "form_facts_unread",
    "form_reference_unread",
    "form_reference_missing",
    "confirm_not_found",
    "confirm_terminal",
    "form_no_fields",
    "form_yes",
    "form_no",
    "form_field_title",
    "form_field_description",
    "output_schema_mismatch",
    "unknown_tool",
    "replayed_note",
    "task_unknown",
    "task_cancelled_by_client",
    "task_cancelled_after_send",
    "task_progress",
    "budget_cut",
    "budget_rest_by_page",
    "budget_overlap",
    "budget_rest_by_filter",
    "budget_whole",
    "rate_limited",
    "rate_limited_ip",
    "rate_limited_reads",
    "rate_limited_writes",
    "selection_unknown_toolset",
    "selection_unknown_tool",
    "selection_header_not_text",
    "selection_not_boolean",
    "selection_refused",
    "discovery_search_title",
    "discovery_describe_title",
    "discovery_call_title",
    "discovery_search_description",
    "discovery_describe_description",
    "discovery_call_description",
    "discovery_query",
    "discovery_limit",
    "discovery_names",
    "discovery_name",
    "discovery_arguments",
    "discovery_name_required",
    "discovery_arguments_object",
    "discovery_query_required",
    "discovery_query_too_long",
    "discovery_limit_range",
    "discovery_names_strings",
    "discovery_names_list",
    "protocol_method_not_found",
    "protocol_call_needs_name",
    "protocol_prompt_needs_name",
    "protocol_arguments_strings",
    "protocol_arguments_object",
    "protocol_log_level",
    "protocol_uri_required",
    "protocol_invalid_params",
    "protocol_invalid_cursor",
    "protocol_unknown_prompt",
    "protocol_prompt_unavailable",
    "protocol_prompt_argument_missing",
    "protocol_prompt_argument_empty",
    "protocol_prompt_argument_not_string",
    "protocol_prompt_argument_not_date",
    "protocol_prompt_argument_not_month",
    "protocol_resource_not_found",
    "protocol_request_state_invalid",
    "protocol_capability_missing",
    "protocol_tasks_extension_missing",
    "protocol_session_not_found",
    "protocol_prompt_no_argument",
    "protocol_unknown_template",
    "protocol_header_required_for",
    "protocol_header_required",
    "protocol_unknown_resource",
    "protocol_completion_needs_ref",
    "protocol_completion_ref_type",
    "protocol_read_needs_uri",
    "protocol_params_object",
    "protocol_cursor_not_string",
    "protocol_request_state_not_string",
    "protocol_request_state_foreign",
    "detail_nothing_to_update",
    "detail_workspace_needed",
    "detail_workspace_unreachable",
    "detail_no_schema",
    "hint_owner_key",
    "hint_owner_key_found_uri",
    "hint_owner_key_found_tool",
    "detail_not_listed",
    "detail_not_listed_recent",
    "detail_limitation_note",
    "detail_argument_required_path",
    "detail_argument_required",
    "sandbox_positive_integer",
    "sandbox_date",
    "sandbox_record_id",
    "sandbox_group_by_list",
    "sandbox_group_by_dimension",
    "sandbox_cannot_select",
    "sandbox_needs_filter",
    "sandbox_state",
    "sandbox_empty",
    "sandbox_not_in_list",
    "sandbox_names_missing",
    "sandbox_idempotency_key_reused",
    "sandbox_none_in_scope",
    "sandbox_none_recorded",
    "sandbox_none_for",
    "auth_missing_token",
    "auth_invalid_token",
    "auth_unreachable",
    "stdio_token_rejected",
    "stdio_token_unchecked",
    "stdio_request_not_run",
    "auth_foreign_workspace",
    "validation_at_argument",
    "validation_at_root",
    "validation_required",
    "validation_unknown",
    "validation_type",
    "validation_min_length",
    "validation_max_length",
    "validation_minimum",
    "validation_maximum",
    "validation_exclusive_minimum",
    "validation_exclusive_maximum",
    "validation_enum",
    "validation_const",
    "validation_format",
    "validation_pattern",
    "validation_min_items",
    "validation_max_items",
    "validation_unique_items",
    "validation_other",
    "type_string",
    "type_integer",
    "type_number",
    "type_boolean",
    "type_object",
    "type_array",
    "type_null",
    "http_no_endpoint",
    "resources_list_incomplete",
    "upstream_unpublished_api",
];

/// Per text, its versions in `Locale::ALL` order (pt-BR, es, en).
const TEXTS: [[&str; 3]; 178] = [
    [
        "O token de acesso não tem o escopo de que esta operação precisa",
        "El token de acceso no tiene el alcance (scope) que esta operación necesita",
        "The access token lacks the scope this needs",
    ],
    [
        "O seu perfil não tem a permissão de que esta operação precisa",
        "Tu rol no tiene el permiso que esta operación necesita",
        "Your role lacks the permission this needs",
    ],
    [
        "Esta conexão não tem um workspace padrão; defina um, ou use as ferramentas com workspace_id",
        "Esta conexión no tiene un workspace predeterminado; define uno, o usa las herramientas con workspace_id",
        "This connection has no default workspace; set one, or use the tools with workspace_id",
    ],
    [
        "O arquivo é maior que o limite de tamanho do recurso",
        "El archivo supera el límite de tamaño del recurso",
        "The file is larger than the resource size limit",
    ],
    [
        "A API da Kobana respondeu com um erro",
        "La API de Kobana respondió con un error",
        "The Kobana API answered with an error",
    ],
    [
        "O armazenamento local do sandbox falhou (diretório de dados inutilizável ou disco cheio)",
        "El almacenamiento local del sandbox falló (directorio de datos inutilizable o disco lleno)",
        "The sandbox's local storage failed (an unusable data directory or a full disk)",
    ],
    [
        "O registro de auditoria não pode ser gravado (disco cheio ou arquivo inacessível); nada foi executado",
        "El registro de auditoría no se puede escribir (disco lleno o archivo inaccesible); no se ejecutó nada",
        "The audit record cannot be written (a full disk or an unwritable file); nothing ran",
    ],
    [
        "Os argumentos não correspondem ao esquema de entrada da ferramenta",
        "Los argumentos no coinciden con el esquema de entrada de la herramienta",
        "The arguments do not match the tool's input schema",
    ],
    [
        "A ação não é permitida no estado atual do registro",
        "La acción no está permitida en el estado actual del registro",
        "The action is not allowed in the record's current state",
    ],
    [
        "Registro não encontrado",
        "No existe ese registro",
        "No such record",
    ],
    [
        "Este tipo de registro ainda não tem uma operação na API da Kobana",
        "Este tipo de registro todavía no tiene una operación en la API de Kobana",
        "This record type has no operation in the Kobana API yet",
    ],
    [
        "Esta ferramenta é destrutiva e precisa de uma confirmação que este cliente não consegue dar: use um cliente 2026-07-28 que declare elicitação por formulário",
        "Esta herramienta es destructiva y necesita una confirmación que este cliente no puede dar: usa un cliente 2026-07-28 que declare elicitación por formulario",
        "This tool is destructive and needs a confirmation this client cannot give: use a 2026-07-28 client that declares form elicitation",
    ],
    [
        "Esta confirmação já foi usada; ela não executa de novo",
        "Esta confirmación ya se usó; no se ejecuta de nuevo",
        "This confirmation was already used; it does not run again",
    ],
    [
        "O servidor não consegue registrar a confirmação agora; nada foi executado, tente de novo mais tarde",
        "El servidor no puede registrar la confirmación en este momento; no se ejecutó nada, inténtalo de nuevo más tarde",
        "The server cannot record the confirmation right now; nothing was run, try again later",
    ],
    [
        "Você tem confirmações ou chamadas pendentes demais ao mesmo tempo; nada foi executado. Deixe as pendentes terminarem ou expirarem e tente de novo",
        "Tienes demasiadas confirmaciones o llamadas pendientes a la vez; no se ejecutó nada. Deja que las pendientes terminen o caduquen y vuelve a intentarlo",
        "You have too many confirmations or calls pending at once; nothing was run. Let the pending ones finish or expire, then try again",
    ],
    [
        "A API da Kobana não informou se isto foi executado: pode ter sido. Confira o registro (liste-o ou consulte-o) antes de fazer qualquer outra coisa. Chamar esta ferramenta de novo com os mesmos argumentos dentro da janela de idempotência envia a mesma chave de idempotência, e a API devolve o primeiro resultado em vez de executar duas vezes",
        "La API de Kobana no indicó si esto se ejecutó: puede que sí. Revisa el registro (lístalo o consúltalo) antes de hacer cualquier otra cosa. Llamar de nuevo a esta herramienta con los mismos argumentos dentro de la ventana de idempotencia envía la misma clave de idempotencia, así que la API responde con el primer resultado en lugar de ejecutarlo dos veces",
        "The Kobana API did not say whether this ran: it may have run. Check the record (list or get it) before doing anything else. Calling this tool again with the same arguments within the idempotency window sends the same idempotency key, so the API answers the first result instead of running it twice",
    ],
    [
        "Você recusou a confirmação; nada foi alterado",
        "Rechazaste la confirmación; no se cambió nada",
        "You declined the confirmation; nothing was changed",
    ],
    [
        "Esta aprovação já foi usada.",
        "Esta aprobación ya se usó.",
        "This approval was already used.",
    ],
    [
        "A ação foi executada uma vez com ela (o resultado foi devolvido naquele momento); consulte o registro para vê-lo.",
        "La acción se ejecutó una vez con ella (su resultado se devolvió en ese momento); consulta el registro para verlo.",
        "The action ran once with it (its result was returned then); read the record to see it.",
    ],
    [
        "A API da Kobana recusou a ação naquele momento, então nada mudou.",
        "La API de Kobana rechazó la acción en ese momento, así que no cambió nada.",
        "The Kobana API refused the action then, so nothing changed.",
    ],
    [
        "A API da Kobana respondeu com o resultado de uma chamada idêntica anterior, então nada novo foi executado naquele momento.",
        "La API de Kobana respondió con el resultado de una llamada idéntica anterior, así que no se ejecutó nada nuevo en ese momento.",
        "The Kobana API answered it with the result of an earlier identical call, so nothing new ran then.",
    ],
    [
        "O resultado daquela chamada é desconhecido: a ação pode ter sido executada. Confira o registro (liste-o ou consulte-o) primeiro; repetir a mesma chamada dentro da janela de idempotência envia a mesma chave de idempotência, e a API devolve o primeiro resultado em vez de executar duas vezes.",
        "El resultado de esa llamada es desconocido: puede que la acción se haya ejecutado. Revisa primero el registro (lístalo o consúltalo); repetir la misma llamada dentro de la ventana de idempotencia envía la misma clave de idempotencia, así que la API responde con el primer resultado en lugar de ejecutarla dos veces.",
        "The outcome of that call is unknown: the action may have run. Check the record (list or get it) first; running the same call again within the idempotency window sends the same idempotency key, so the API answers the first result instead of running it twice.",
    ],
    [
        "Este servidor não tem um resultado registrado para ela (a chamada pode ainda estar em execução, ou foi interrompida): a ação pode ter sido executada. Confira o registro (liste-o ou consulte-o) primeiro; repetir a mesma chamada dentro da janela de idempotência envia a mesma chave de idempotência, e a API devolve o primeiro resultado em vez de executar duas vezes.",
        "Este servidor no tiene un resultado registrado para ella (puede que la llamada siga en curso, o se interrumpió): puede que la acción se haya ejecutado. Revisa primero el registro (lístalo o consúltalo); repetir la misma llamada dentro de la ventana de idempotencia envía la misma clave de idempotencia, así que la API responde con el primer resultado en lugar de ejecutarla dos veces.",
        "This server has no recorded outcome for it (the call may still be running, or was interrupted): the action may have run. Check the record (list or get it) first; running the same call again within the idempotency window sends the same idempotency key, so the API answers the first result instead of running it twice.",
    ],
    [
        "Você cancelou o pedido de confirmação sem responder; nada foi alterado",
        "Cancelaste la solicitud de confirmación sin responder; no se cambió nada",
        "You cancelled the confirmation request without answering; nothing was changed",
    ],
    [
        "Você enviou o formulário sem marcar a confirmação; nada foi alterado",
        "Enviaste el formulario sin marcar la confirmación; no se cambió nada",
        "You sent the form without ticking the confirmation; nothing was changed",
    ],
    [
        "Você confirma esta ação?",
        "¿Confirmas esta acción?",
        "Do you confirm this action?",
    ],
    [
        "Ação",
        "Acción",
        "Action",
    ],
    [
        "Registro",
        "Registro",
        "Record",
    ],
    [
        "todos os registros selecionados pelos dados abaixo",
        "todos los registros que seleccionan los datos de abajo",
        "every record the details below select",
    ],
    [
        "Por que pedimos confirmação: {action} não pode ser desfeito.",
        "Por qué pedimos confirmación: {action} no se puede deshacer.",
        "Why we ask: “{action}” cannot be undone.",
    ],
    [
        "Por que pedimos confirmação: {action} muda para onde vão os dados ou o dinheiro; confira o antes e o depois.",
        "Por qué pedimos confirmación: {action} cambia adónde van los datos o el dinero; revisa el antes y el después.",
        "Why we ask: “{action}” changes where data or money goes; check the before and after.",
    ],
    [
        "Dados que serão enviados",
        "Datos que se enviarán",
        "Details that will be sent",
    ],
    [
        "(oculto)",
        "(oculto)",
        "(hidden)",
    ],
    [
        "Não foi possível consultar os dados deste registro agora: confira-os antes de confirmar.",
        "No se pudieron consultar los datos de este registro ahora: compruébalos antes de confirmar.",
        "The record's details could not be fetched right now: check them before you confirm.",
    ],
    [
        "{id} (não foi possível consultar este registro agora)",
        "{id} (no se pudo consultar este registro ahora)",
        "{id} (this record could not be read right now)",
    ],
    [
        "{id} (não existe ou não está ao seu alcance)",
        "{id} (no existe o no está a tu alcance)",
        "{id} (does not exist or is not within your reach)",
    ],
    [
        "{record} {id} não existe ou não está ao seu alcance; nada foi perguntado nem executado",
        "{record} {id} no existe o no está a tu alcance; no se preguntó ni se ejecutó nada",
        "{record} {id} does not exist or is not within your reach; nothing was asked or run",
    ],
    [
        "{record} {id} está na situação “{state}”, em que “{action}” não é possível; nada foi perguntado nem executado",
        "{record} {id} está en el estado «{state}», en el que «{action}» no es posible; no se preguntó ni se ejecutó nada",
        "{record} {id} is “{state}”, a state in which “{action}” is not possible; nothing was asked or run",
    ],
    [
        "Dados: nenhum",
        "Datos: ninguno",
        "Details: none",
    ],
    [
        "sim",
        "sí",
        "yes",
    ],
    [
        "não",
        "no",
        "no",
    ],
    [
        "Executar",
        "Ejecutar",
        "Run",
    ],
    [
        "Sim: a ação é executada uma única vez, com os dados mostrados; Não: nada é alterado.",
        "Sí: la acción se ejecuta una sola vez, con los datos mostrados; No: no se cambia nada.",
        "Yes: the action runs once, with the details shown; No: nothing is changed.",
    ],
    [
        "A operação foi executada (HTTP 2xx), mas a resposta dela não segue o esquema de saída declarado, em `{path}`: {problem}. Não repita a chamada para tentar de novo. A resposta, como veio, está em `answer`.",
        "La operación se ejecutó (HTTP 2xx), pero su respuesta no sigue el esquema de salida declarado, en `{path}`: {problem}. No repitas la llamada para reintentarla. La respuesta, tal como llegó, está en `answer`.",
        "The operation was carried out (HTTP 2xx) but its answer does not match the declared output schema at `{path}`: {problem}. Do not repeat the call to retry it. The answer as it came is in `answer`.",
    ],
    [
        "Ferramenta desconhecida: {name}",
        "Herramienta desconocida: {name}",
        "Unknown tool: {name}",
    ],
    [
        "Observação: a API da Kobana respondeu com o resultado guardado de uma chamada idêntica anterior (mesma ferramenta, argumentos, pessoa, organização e workspace) em vez de executá-la de novo, então nada novo foi executado agora. O resultado abaixo é o daquela chamada anterior. Para executar de novo de propósito, chame a ferramenta outra vez: a próxima chamada é uma nova.",
        "Nota: la API de Kobana respondió con el resultado guardado de una llamada idéntica anterior (misma herramienta, argumentos, persona, organización y workspace) en lugar de ejecutarla de nuevo, así que no se ejecutó nada nuevo ahora. El resultado de abajo es el de esa llamada anterior. Para ejecutarla otra vez a propósito, vuelve a llamar a la herramienta: la siguiente llamada es una nueva.",
        "Note: the Kobana API answered with the stored result of an earlier identical call (same tool, arguments, person, organization and workspace) instead of running it again, so nothing new ran now. The result below is that earlier call's. To run it again on purpose, call the tool again: the next call is a new one.",
    ],
    [
        "Tarefa desconhecida: {id} (não há essa tarefa para quem chama, ou o TTL dela expirou)",
        "Tarea desconocida: {id} (no existe esa tarea para quien llama, o su TTL expiró)",
        "Unknown task: {id} (no such task for this caller, or its TTL ran out)",
    ],
    [
        "Cancelada pelo cliente",
        "Cancelada por el cliente",
        "Cancelled by the client",
    ],
    [
        "Cancelada depois que a chamada de {tool} foi enviada à API da Kobana; a chamada terminou mesmo assim, e o resultado dela está anexado",
        "Cancelada después de que la llamada a {tool} se envió a la API de Kobana; la llamada terminó de todos modos, y su resultado va adjunto",
        "Cancelled after the call of {tool} was sent to the Kobana API; the call finished anyway, and its result is attached",
    ],
    [
        "{tool}: a solicitação está em processamento ({done}% concluído)",
        "{tool}: la solicitud se está procesando ({done}% completado)",
        "{tool}: the request is being processed ({done}% done)",
    ],
    [
        "Resposta cortada para caber no limite de resultado de {tokens} tokens (cerca de {bytes} bytes): aparecem, inteiros, os primeiros {shown} dos {total} registros desta resposta.",
        "Respuesta recortada para caber en el límite de resultado de {tokens} tokens (unos {bytes} bytes): se muestran, completos, los primeros {shown} de los {total} registros de esta respuesta.",
        "Cut to fit the result budget of {tokens} tokens (about {bytes} bytes): the first {shown} of the {total} records of this answer are shown, whole.",
    ],
    [
        "Para obter o restante, chame {tool} de novo com per_page={size} e page={next}{overlap}, e assim por diante; ou restrinja o filtro para que menos registros correspondam.",
        "Para obtener el resto, vuelve a llamar a {tool} con per_page={size} y page={next}{overlap}, y así sucesivamente; o acota el filtro para que coincidan menos registros.",
        "To get the rest, call {tool} again with per_page={size} and page={next}{overlap}, and so on; or narrow the filter so fewer records match.",
    ],
    [
        " (os primeiros registros dela já apareceram aqui)",
        " (sus primeros registros ya se mostraron aquí)",
        " (its first records were already shown here)",
    ],
    [
        "Para obter o restante, restrinja o filtro para que menos registros correspondam.",
        "Para obtener el resto, acota el filtro para que coincidan menos registros.",
        "To get the rest, narrow the filter so fewer records match.",
    ],
    [
        "A resposta inteira é o recurso {uri}.",
        "La respuesta completa es el recurso {uri}.",
        "The whole answer is the resource {uri}.",
    ],
    [
        "Limite de requisições `{name}` atingido: no máximo {max} {who} a cada {window} s ({flag}); tente de novo em {secs} s",
        "Se alcanzó el límite de solicitudes `{name}`: como máximo {max} {who} cada {window} s ({flag}); vuelve a intentarlo en {secs} s",
        "Rate limit `{name}` reached: at most {max} {who} per {window} s ({flag}); retry in {secs} s",
    ],
    [
        "requisições deste endereço de cliente",
        "solicitudes desde esta dirección de cliente",
        "requests from this client address",
    ],
    [
        "chamadas de leitura desta identidade",
        "llamadas de lectura de esta identidad",
        "read calls for this identity",
    ],
    [
        "chamadas de escrita desta identidade",
        "llamadas de escritura de esta identidad",
        "write calls for this identity",
    ],
    [
        "o conjunto de ferramentas `{name}` não existe; os que existem são: {known}",
        "el conjunto de herramientas `{name}` no existe; los que existen son: {known}",
        "unknown toolset `{name}`; known: {known}",
    ],
    [
        "a ferramenta `{name}` não existe (não é uma ferramenta de {product})",
        "la herramienta `{name}` no existe (no es una herramienta de {product})",
        "unknown tool `{name}` (not a tool of {product})",
    ],
    [
        "o cabeçalho {header} não é ASCII visível",
        "el encabezado {header} no es ASCII visible",
        "the {header} header is not visible ASCII",
    ],
    [
        "o cabeçalho {header} precisa ser true ou false, e não {value}",
        "el encabezado {header} debe ser true o false, no {value}",
        "the {header} header must be true or false, not {value}",
    ],
    [
        "Seleção de ferramentas inválida: {why}",
        "Selección de herramientas no válida: {why}",
        "Invalid tool selection: {why}",
    ],
    [
        "Buscar ferramentas",
        "Buscar herramientas",
        "Search the tools",
    ],
    [
        "Descrever ferramentas",
        "Describir herramientas",
        "Describe tools",
    ],
    [
        "Chamar uma ferramenta",
        "Llamar a una herramienta",
        "Call a tool",
    ],
    [
        "Busca as ferramentas de {title} pelo que elas fazem, com ranking sobre nomes, títulos, descrições e nomes de argumentos. Responde com as melhores correspondências (nome, título, uma descrição curta e se elas apenas consultam ou são destrutivas). Depois, descreva as escolhidas com {describe} e execute uma com {call}.",
        "Busca las herramientas de {title} según lo que hacen, con un ranking sobre sus nombres, títulos, descripciones y nombres de argumentos. Responde con las mejores coincidencias (nombre, título, una descripción breve y si solo consultan o son destructivas). Luego describe las elegidas con {describe} y ejecuta una con {call}.",
        "Searches the tools of {title} by what they do: ranked over their names, titles, descriptions and argument names. Answers the best matches (name, title, a short description, whether they only read or are destructive). Then describe the chosen ones with {describe} and run one with {call}.",
    ],
    [
        "Os descritores completos das ferramentas de {title} indicadas pelo nome: descrição, esquema de entrada, esquema de saída e anotações, como o tools/list os entregaria. Chame-as com {call}.",
        "Los descriptores completos de las herramientas de {title} indicadas por nombre: descripción, esquema de entrada, esquema de salida y anotaciones, tal como los daría tools/list. Llámalas con {call}.",
        "The full descriptors of the named tools of {title}: description, input schema, output schema and annotations, as tools/list would give them. Call them with {call}.",
    ],
    [
        "Executa uma ferramenta de {title} pelo nome, com os argumentos dela, exatamente como uma chamada direta: as mesmas permissões, a mesma verificação dos argumentos e a mesma confirmação das ferramentas destrutivas. Descreva a ferramenta antes com {describe} para conhecer os argumentos dela.",
        "Ejecuta una herramienta de {title} por su nombre, con sus argumentos, exactamente como una llamada directa: los mismos permisos, la misma verificación de argumentos y la misma confirmación de las herramientas destructivas. Describe antes la herramienta con {describe} para conocer sus argumentos.",
        "Runs one tool of {title} by name with its arguments, exactly as a direct call would: the same permissions, argument checks and confirmation of destructive tools. Describe the tool first with {describe} to know its arguments.",
    ],
    [
        "O que você quer fazer, em palavras (em qualquer um dos idiomas do catálogo), por exemplo \"cancelar um boleto\".",
        "Lo que quieres hacer, en palabras (en cualquiera de los idiomas del catálogo), por ejemplo \"cancelar un boleto\".",
        "What you want to do, in words (any of the catalog's languages), e.g. \"cancel a billet\".",
    ],
    [
        "Número máximo de resultados (padrão: {default}).",
        "Cantidad máxima de resultados (por defecto: {default}).",
        "Most results (default {default}).",
    ],
    [
        "Nomes das ferramentas, como a busca os devolveu.",
        "Nombres de las herramientas, tal como los devolvió la búsqueda.",
        "Tool names, as the search answered them.",
    ],
    [
        "O nome da ferramenta.",
        "El nombre de la herramienta.",
        "The tool's name.",
    ],
    [
        "Os argumentos da ferramenta, conforme o esquema de entrada dela.",
        "Los argumentos de la herramienta, según su esquema de entrada.",
        "The tool's arguments, as its input schema says.",
    ],
    [
        "o argumento `name` (um texto) é obrigatório",
        "el argumento `name` (un texto) es obligatorio",
        "argument `name` (a string) is required",
    ],
    [
        "o argumento `arguments` precisa ser um objeto",
        "el argumento `arguments` debe ser un objeto",
        "argument `arguments` must be an object",
    ],
    [
        "o argumento `query` (um texto) é obrigatório",
        "el argumento `query` (un texto) es obligatorio",
        "argument `query` (a string) is required",
    ],
    [
        "o argumento `query` passa de {max} bytes; busque com algumas palavras",
        "el argumento `query` supera los {max} bytes; busca con algunas palabras",
        "argument `query` is longer than {max} bytes; search with a few words",
    ],
    [
        "o argumento `limit` precisa ser um número inteiro de 1 a {max}",
        "el argumento `limit` debe ser un número entero de 1 a {max}",
        "argument `limit` must be an integer from 1 to {max}",
    ],
    [
        "o argumento `names` precisa conter apenas textos",
        "el argumento `names` debe contener solo textos",
        "argument `names` must hold strings",
    ],
    [
        "o argumento `names` precisa ser uma lista de 1 a {max} nomes de ferramentas",
        "el argumento `names` debe ser una lista de 1 a {max} nombres de herramientas",
        "argument `names` must be a list of 1 to {max} tool names",
    ],
    [
        "Método não encontrado: {method}",
        "Método no encontrado: {method}",
        "Method not found: {method}",
    ],
    [
        "Parâmetros inválidos: tools/call precisa de `name` (uma string)",
        "Parámetros inválidos: tools/call necesita `name` (una cadena)",
        "Invalid params: tools/call needs `name` (a string)",
    ],
    [
        "Parâmetros inválidos: prompts/get precisa de `name` (uma string)",
        "Parámetros inválidos: prompts/get necesita `name` (una cadena)",
        "Invalid params: prompts/get needs `name` (a string)",
    ],
    [
        "Parâmetros inválidos: `arguments` deve ser um objeto de strings",
        "Parámetros inválidos: `arguments` debe ser un objeto de cadenas",
        "Invalid params: `arguments` must be an object of strings",
    ],
    [
        "Parâmetros inválidos: `arguments` deve ser um objeto",
        "Parámetros inválidos: `arguments` debe ser un objeto",
        "Invalid params: `arguments` must be an object",
    ],
    [
        "Parâmetros inválidos: level deve ser um destes: {levels}",
        "Parámetros inválidos: level debe ser uno de estos: {levels}",
        "Invalid params: level must be one of {levels}",
    ],
    [
        "Parâmetros inválidos: uri (uma string) é obrigatório",
        "Parámetros inválidos: uri (una cadena) es obligatorio",
        "Invalid params: uri (a string) is required",
    ],
    [
        "Parâmetros inválidos: {detail}",
        "Parámetros inválidos: {detail}",
        "Invalid params: {detail}",
    ],
    [
        "Cursor inválido",
        "Cursor inválido",
        "Invalid cursor",
    ],
    [
        "Prompt desconhecido: {name}",
        "Prompt desconocido: {name}",
        "Unknown prompt: {name}",
    ],
    [
        "O prompt {name} não está disponível: ele usa ferramentas que quem chama não pode chamar",
        "El prompt {name} no está disponible: usa herramientas que quien llama no puede llamar",
        "Prompt {name} is not available: it uses tools this caller cannot call",
    ],
    [
        "Falta o argumento obrigatório `{argument}` do prompt {name}",
        "Falta el argumento obligatorio `{argument}` del prompt {name}",
        "Missing required argument `{argument}` of prompt {name}",
    ],
    [
        "Argumento inválido `{argument}` do prompt {name}: é obrigatório e não pode ficar vazio",
        "Argumento inválido `{argument}` del prompt {name}: es obligatorio y no puede quedar vacío",
        "Invalid argument `{argument}` of prompt {name}: it is required and must not be empty",
    ],
    [
        "Argumento inválido `{argument}`: os argumentos de um prompt são strings",
        "Argumento inválido `{argument}`: los argumentos de un prompt son cadenas",
        "Invalid argument `{argument}`: prompt arguments are strings",
    ],
    [
        "Argumento inválido `{argument}`: {value} não é uma data (YYYY-MM-DD)",
        "Argumento inválido `{argument}`: {value} no es una fecha (YYYY-MM-DD)",
        "Invalid argument `{argument}`: {value} is not a date (YYYY-MM-DD)",
    ],
    [
        "Argumento inválido `{argument}`: {value} não é um mês (YYYY-MM)",
        "Argumento inválido `{argument}`: {value} no es un mes (YYYY-MM)",
        "Invalid argument `{argument}`: {value} is not a month (YYYY-MM)",
    ],
    [
        "Recurso não encontrado: {uri}",
        "Recurso no encontrado: {uri}",
        "Resource not found: {uri}",
    ],
    [
        "requestState inválido ou expirado: {detail}",
        "requestState inválido o vencido: {detail}",
        "Invalid or expired requestState: {detail}",
    ],
    [
        "Esta solicitação precisa da capacidade de cliente `{capability}`, que a solicitação não declarou",
        "Esta solicitud necesita la capacidad de cliente `{capability}`, que la solicitud no declaró",
        "This request needs the client capability `{capability}`, which the request did not declare",
    ],
    [
        "{method} precisa da capacidade de cliente {capability} (a extensão Tasks), que a solicitação não declarou",
        "{method} necesita la capacidad de cliente {capability} (la extensión Tasks), que la solicitud no declaró",
        "{method} needs the client capability {capability} (the Tasks extension), which the request did not declare",
    ],
    [
        "Sessão não encontrada",
        "Sesión no encontrada",
        "Session not found",
    ],
    [
        "O prompt {name} não tem o argumento `{argument}`",
        "El prompt {name} no tiene el argumento `{argument}`",
        "Prompt {name} has no argument `{argument}`",
    ],
    [
        "Modelo de recurso desconhecido: {uri}",
        "Plantilla de recurso desconocida: {uri}",
        "Unknown resource template: {uri}",
    ],
    [
        "Cabeçalhos divergentes: o cabeçalho {header} é obrigatório em {method}",
        "Cabeceras discordantes: la cabecera {header} es obligatoria en {method}",
        "Header mismatch: the {header} header is required for {method}",
    ],
    [
        "Cabeçalhos divergentes: o cabeçalho {header} é obrigatório",
        "Cabeceras discordantes: la cabecera {header} es obligatoria",
        "Header mismatch: the {header} header is required",
    ],
    [
        "Recurso ou modelo de recurso desconhecido: {uri}",
        "Recurso o plantilla de recurso desconocido: {uri}",
        "Unknown resource or template: {uri}",
    ],
    [
        "Parâmetros inválidos: completion/complete precisa de `ref` e `argument.name`",
        "Parámetros inválidos: completion/complete necesita `ref` y `argument.name`",
        "Invalid params: completion/complete needs `ref` and `argument.name`",
    ],
    [
        "Parâmetros inválidos: `ref.type` deve ser `ref/prompt` ou `ref/resource`",
        "Parámetros inválidos: `ref.type` debe ser `ref/prompt` o `ref/resource`",
        "Invalid params: `ref.type` must be `ref/prompt` or `ref/resource`",
    ],
    [
        "Parâmetros inválidos: resources/read precisa de `uri` (uma string)",
        "Parámetros inválidos: resources/read necesita `uri` (una cadena)",
        "Invalid params: resources/read needs `uri` (a string)",
    ],
    [
        "Parâmetros inválidos: \"params\" deve ser um objeto",
        "Parámetros inválidos: \"params\" debe ser un objeto",
        "Invalid params: \"params\" must be an object",
    ],
    [
        "Cursor inválido: ele deve ser uma string",
        "Cursor inválido: debe ser una cadena",
        "Invalid cursor: it must be a string",
    ],
    [
        "requestState inválido: ele deve ser uma string",
        "requestState inválido: debe ser una cadena",
        "Invalid requestState: it must be a string",
    ],
    [
        "requestState inválido: foi emitido para outra solicitação, outros argumentos ou outra pessoa",
        "requestState inválido: se emitió para otra solicitud, otros argumentos u otra persona",
        "Invalid requestState: it was issued for a different request, arguments or caller",
    ],
    [
        "nada para alterar: informe pelo menos um campo de {record} ({fields})",
        "nada que cambiar: indica al menos un campo de {record} ({fields})",
        "nothing to update: give at least one field of {record} ({fields})",
    ],
    [
        "os registros de {product} ficam em um workspace: informe `workspace_id`, ou defina um workspace padrão para a conexão",
        "los registros de {product} están en un workspace: indica `workspace_id`, o define un workspace predeterminado para la conexión",
        "{product} records live in a workspace: pass `workspace_id`, or set a default workspace for the connection",
    ],
    [
        "workspace `{workspace}` (fora do alcance desta pessoa)",
        "workspace `{workspace}` (fuera del alcance de esta persona)",
        "workspace `{workspace}` (not one you can reach)",
    ],
    [
        "nenhum esquema se chama `{name}`; os esquemas: {known}",
        "ningún esquema se llama `{name}`; los esquemas: {known}",
        "no schema named `{name}`; known: {known}",
    ],
    [
        "O endereço de {record} leva o uid de {owner} (`{id_arg}`), não o `uid` do próprio registro: encontre-o com {list_tool}, ou no campo `{id_arg}` do registro",
        "La dirección de {record} lleva el uid de {owner} (`{id_arg}`), no el `uid` del propio registro: encuéntralo con {list_tool}, o en el campo `{id_arg}` del registro",
        "The address of {record} takes the uid of {owner} (`{id_arg}`), not the record's own `uid`: find it with {list_tool}, or in the record's `{id_arg}` field",
    ],
    [
        "`{given}` é o `uid` próprio de {record} de {owner} `{key}`: leia {uri}",
        "`{given}` es el `uid` propio de {record} de {owner} `{key}`: lee {uri}",
        "`{given}` is the own `uid` of {record} of {owner} `{key}`: read {uri}",
    ],
    [
        "`{given}` é o `uid` próprio de {record} de {owner} `{key}`: chame {tool} com `{id_arg}` = `{key}`",
        "`{given}` es el `uid` propio de {record} de {owner} `{key}`: llama a {tool} con `{id_arg}` = `{key}`",
        "`{given}` is the own `uid` of {record} of {owner} `{key}`: call {tool} with `{id_arg}` = `{key}`",
    ],
    [
        "`{id}` (não está entre os registros que {list} lista)",
        "`{id}` (no está entre los registros que lista {list})",
        "`{id}` (not among the records {list} lists)",
    ],
    [
        "`{id}` (não está entre os {count} registros mais recentes que {list} lista; a API não tem consulta por id)",
        "`{id}` (no está entre los {count} registros más recientes que lista {list}; la API no tiene consulta por id)",
        "`{id}` (not among the {count} most recent records {list} lists; the API has no read by id)",
    ],
    [
        "{tool}: veja a nota de limitação do seu modelo de recurso na documentação do produto",
        "{tool}: consulta la nota de limitación de su plantilla de recurso en la documentación del producto",
        "{tool}: see the limitation note of its resource template in the product docs",
    ],
    [
        "falta `{argument}` (caminho de {path})",
        "falta `{argument}` (ruta de {path})",
        "`{argument}` is required (path of {path})",
    ],
    [
        "falta `{argument}`",
        "falta `{argument}`",
        "`{argument}` is required",
    ],
    [
        "`{name}` deve ser um número inteiro positivo; recebido: {value}",
        "`{name}` debe ser un número entero positivo; recibido: {value}",
        "`{name}` must be a positive integer, got {value}",
    ],
    [
        "`{name}` deve ser uma data (AAAA-MM-DD); recebido: {value}",
        "`{name}` debe ser una fecha (AAAA-MM-DD); recibido: {value}",
        "`{name}` must be a date (YYYY-MM-DD), got {value}",
    ],
    [
        "`{name}` deve ser o id de um registro (string); recebido: {value}",
        "`{name}` debe ser el id de un registro (cadena); recibido: {value}",
        "`{name}` must be a record id (string), got {value}",
    ],
    [
        "`group_by` deve ser uma lista de dimensões separadas por vírgula; recebido: {value}",
        "`group_by` debe ser una lista de dimensiones separadas por comas; recibido: {value}",
        "`group_by` must be a comma-separated list of dimensions, got {value}",
    ],
    [
        "`group_by`: `{dimension}` não é uma dimensão; use day, week, month ou um destes campos: {fields}",
        "`group_by`: `{dimension}` no es una dimensión; usa day, week, month o uno de estos campos: {fields}",
        "`group_by`: `{dimension}` is not a dimension; use day, week, month or one of {fields}",
    ],
    [
        "`{tool}` não seleciona {record} por {unknown}; use {fields}",
        "`{tool}` no selecciona {record} por {unknown}; usa {fields}",
        "`{tool}` cannot select {record} by {unknown}; use {fields}",
    ],
    [
        "`{tool}` age sobre todos os registros que os argumentos selecionam: informe pelo menos um filtro",
        "`{tool}` actúa sobre todos los registros que seleccionan sus argumentos: indica al menos un filtro",
        "`{tool}` applies to every record its arguments select: give at least one filter",
    ],
    [
        "`{action}` não se aplica a {record} `{id}`: seu {field} é `{state}`; só se aplica quando {field} é {from}",
        "`{action}` no se aplica a {record} `{id}`: su {field} es `{state}`; solo se aplica cuando {field} es {from}",
        "cannot {action} {record} `{id}`: its {field} is `{state}`; allowed only when {field} is {from}",
    ],
    [
        "`{name}` não pode ser vazio",
        "`{name}` no puede estar vacío",
        "`{name}` must not be empty",
    ],
    [
        "{record} `{id}`: {value} não está em `{field}`",
        "{record} `{id}`: {value} no está en `{field}`",
        "{record} `{id}`: {value} is not in its `{field}`",
    ],
    [
        "`{argument}` indica {target} `{id}`, que não existe nesta organização (ou workspace)",
        "`{argument}` indica {target} `{id}`, que no existe en esta organización (o workspace)",
        "`{argument}` names {target} `{id}`, which does not exist in this organization (or workspace)",
    ],
    [
        "esta chave de idempotência foi usada antes em {tool}; uma nova solicitação precisa de uma nova chave",
        "esta clave de idempotencia se usó antes en {tool}; una nueva solicitud necesita una nueva clave",
        "this idempotency key was first used for {tool}; a new request needs a new key",
    ],
    [
        "{record}: não há nenhum registro deste tipo neste escopo",
        "{record}: no hay ningún registro de este tipo en este ámbito",
        "{record}: this scope holds no record of it",
    ],
    [
        "{record}: nenhum registrado",
        "{record}: ninguno registrado",
        "{record}: none recorded",
    ],
    [
        "{record} com {given}",
        "{record} con {given}",
        "{record} for {given}",
    ],
    [
        "nenhum token de acesso (bearer) foi enviado",
        "no se envió ningún token de acceso (bearer)",
        "no bearer token was given",
    ],
    [
        "o token de acesso (bearer) é inválido ou expirou",
        "el token de acceso (bearer) no es válido o caducó",
        "the bearer token is invalid or expired",
    ],
    [
        "o serviço de identidade não responde: {why}",
        "el servicio de identidad no responde: {why}",
        "the identity service is unreachable: {why}",
    ],
    [
        "{variable} não foi aceito: {why}",
        "{variable} no fue aceptado: {why}",
        "{variable} was not accepted: {why}",
    ],
    [
        "o serviço de identidade não responde ({why}); não foi possível verificar {variable}",
        "el servicio de identidad no responde ({why}); no se pudo verificar {variable}",
        "the identity service is unreachable ({why}); {variable} could not be checked",
    ],
    [
        "{why}: a solicitação não foi executada; a próxima solicitação consulta o serviço de identidade de novo",
        "{why}: la solicitud no se ejecutó; la próxima solicitud consulta de nuevo el servicio de identidad",
        "{why}: the request was not run; the next request asks the identity service again",
    ],
    [
        "o workspace {workspace} está fora do alcance desta pessoa",
        "el workspace {workspace} está fuera del alcance de esta persona",
        "workspace {workspace} is not reachable by this person",
    ],
    [
        "argumento `{argument}`: {problem}",
        "argumento `{argument}`: {problem}",
        "argument `{argument}`: {problem}",
    ],
    [
        "argumentos: {problem}",
        "argumentos: {problem}",
        "arguments: {problem}",
    ],
    [
        "falta o argumento obrigatório `{argument}`",
        "falta el argumento obligatorio `{argument}`",
        "argument `{argument}` is required",
    ],
    [
        "argumento(s) desconhecido(s): {names}",
        "argumento(s) desconocido(s): {names}",
        "unknown argument(s): {names}",
    ],
    [
        "{value} não é do tipo {expected}",
        "{value} no es del tipo {expected}",
        "{value} is not of type {expected}",
    ],
    [
        "{value} tem menos de {limit} caracteres",
        "{value} tiene menos de {limit} caracteres",
        "{value} is shorter than {limit} characters",
    ],
    [
        "{value} tem mais de {limit} caracteres",
        "{value} tiene más de {limit} caracteres",
        "{value} is longer than {limit} characters",
    ],
    [
        "{value} é menor que o mínimo, {limit}",
        "{value} es menor que el mínimo, {limit}",
        "{value} is less than the minimum of {limit}",
    ],
    [
        "{value} é maior que o máximo, {limit}",
        "{value} es mayor que el máximo, {limit}",
        "{value} is greater than the maximum of {limit}",
    ],
    [
        "{value} precisa ser maior que {limit}",
        "{value} debe ser mayor que {limit}",
        "{value} must be greater than {limit}",
    ],
    [
        "{value} precisa ser menor que {limit}",
        "{value} debe ser menor que {limit}",
        "{value} must be less than {limit}",
    ],
    [
        "{value} não é um dos valores aceitos: {options}",
        "{value} no es uno de los valores aceptados: {options}",
        "{value} is not one of {options}",
    ],
    [
        "{value} precisa ser {expected}",
        "{value} debe ser {expected}",
        "{value} must be {expected}",
    ],
    [
        "{value} não está no formato {format}",
        "{value} no tiene el formato {format}",
        "{value} is not in the {format} format",
    ],
    [
        "{value} não corresponde ao padrão {pattern}",
        "{value} no coincide con el patrón {pattern}",
        "{value} does not match the pattern {pattern}",
    ],
    [
        "a lista tem menos de {limit} itens",
        "la lista tiene menos de {limit} elementos",
        "the list has fewer than {limit} items",
    ],
    [
        "a lista tem mais de {limit} itens",
        "la lista tiene más de {limit} elementos",
        "the list has more than {limit} items",
    ],
    [
        "a lista tem itens repetidos",
        "la lista tiene elementos repetidos",
        "the list has repeated items",
    ],
    [
        "o valor {value} não é aceito pelo esquema da ferramenta",
        "el valor {value} no es aceptado por el esquema de la herramienta",
        "the value {value} does not fit the tool's schema",
    ],
    [
        "texto",
        "texto",
        "string",
    ],
    [
        "inteiro",
        "entero",
        "integer",
    ],
    [
        "número",
        "número",
        "number",
    ],
    [
        "booleano",
        "booleano",
        "boolean",
    ],
    [
        "objeto",
        "objeto",
        "object",
    ],
    [
        "lista",
        "lista",
        "array",
    ],
    [
        "nulo",
        "nulo",
        "null",
    ],
    [
        "nenhum endpoint MCP em {path}; este servidor atende em {paths}",
        "no hay ningún endpoint MCP en {path}; este servidor atiende en {paths}",
        "no MCP endpoint at {path}; this server serves {paths}",
    ],
    [
        "Lista incompleta: os registros recentes de {types} não vieram da API da Kobana desta vez; eles continuam legíveis pela URI. Tente listar de novo mais tarde.",
        "Lista incompleta: los registros recientes de {types} no llegaron de la API de Kobana esta vez; se siguen leyendo por su URI. Vuelve a listar más tarde.",
        "Incomplete list: the recent records of {types} did not come from the Kobana API this time; they can still be read by URI. List again later.",
    ],
    [
        "a Kobana não publica uma API para {products}: os caminhos que este servidor chamaria são do próprio projeto e a API da Kobana não os atende. Sirva esses produtos pelo sandbox embutido (sem --upstream) ou, se o seu upstream implementa esses caminhos, diga isso com --upstream-serves {list} (KOBANA_UPSTREAM_SERVES, ou serves na seção upstream do arquivo de configuração)",
        "Kobana no publica una API para {products}: las rutas que este servidor llamaría son propias del proyecto y la API de Kobana no las atiende. Sirve esos productos desde el sandbox integrado (sin --upstream) o, si tu upstream implementa esas rutas, dilo con --upstream-serves {list} (KOBANA_UPSTREAM_SERVES, o serves en la sección upstream del archivo de configuración)",
        "Kobana publishes no API for {products}: the paths this server would call are this project's own, and the Kobana API does not serve them. Serve these products from the embedded sandbox (without --upstream) or, if your upstream implements these paths, say so with --upstream-serves {list} (KOBANA_UPSTREAM_SERVES, or serves in the config file's upstream section)",
    ],
];

const PLACEHOLDERS: [&[&str]; 178] = [
    &[],
    &[],
    &[],
    &[],
    &[],
    &[],
    &[],
    &[],
    &[],
    &[],
    &[],
    &[],
    &[],
    &[],
    &[],
    &[],
    &[],
    &[],
    &[],
    &[],
    &[],
    &[],
    &[],
    &[],
    &[],
    &[],
    &[],
    &[],
    &[],
    &["action"],
    &["action"],
    &[],
    &[],
    &[],
    &["id"],
    &["id"],
    &["record", "id"],
    &["record", "id", "state", "action"],
    &[],
    &[],
    &[],
    &[],
    &[],
    &["path", "problem"],
    &["name"],
    &[],
    &["id"],
    &[],
    &["tool"],
    &["tool", "done"],
    &["tokens", "bytes", "shown", "total"],
    &["tool", "size", "next", "overlap"],
    &[],
    &[],
    &["uri"],
    &["name", "max", "who", "window", "flag", "secs"],
    &[],
    &[],
    &[],
    &["name", "known"],
    &["name", "product"],
    &["header"],
    &["header", "value"],
    &["why"],
    &[],
    &[],
    &[],
    &["title", "describe", "call"],
    &["title", "call"],
    &["title", "describe"],
    &[],
    &["default"],
    &[],
    &[],
    &[],
    &[],
    &[],
    &[],
    &["max"],
    &["max"],
    &[],
    &["max"],
    &["method"],
    &[],
    &[],
    &[],
    &[],
    &["levels"],
    &[],
    &["detail"],
    &[],
    &["name"],
    &["name"],
    &["argument", "name"],
    &["argument", "name"],
    &["argument"],
    &["argument", "value"],
    &["argument", "value"],
    &["uri"],
    &["detail"],
    &["capability"],
    &["method", "capability"],
    &[],
    &["name", "argument"],
    &["uri"],
    &["header", "method"],
    &["header"],
    &["uri"],
    &[],
    &[],
    &[],
    &[],
    &[],
    &[],
    &[],
    &["record", "fields"],
    &["product"],
    &["workspace"],
    &["name", "known"],
    &["record", "owner", "id_arg", "list_tool"],
    &["given", "record", "owner", "key", "uri"],
    &["given", "record", "owner", "key", "tool", "id_arg"],
    &["id", "list"],
    &["id", "count", "list"],
    &["tool"],
    &["argument", "path"],
    &["argument"],
    &["name", "value"],
    &["name", "value"],
    &["name", "value"],
    &["value"],
    &["dimension", "fields"],
    &["tool", "record", "unknown", "fields"],
    &["tool"],
    &["action", "record", "id", "field", "state", "from"],
    &["name"],
    &["record", "id", "value", "field"],
    &["argument", "target", "id"],
    &["tool"],
    &["record"],
    &["record"],
    &["record", "given"],
    &[],
    &[],
    &["why"],
    &["variable", "why"],
    &["why", "variable"],
    &["why"],
    &["workspace"],
    &["argument", "problem"],
    &["problem"],
    &["argument"],
    &["names"],
    &["value", "expected"],
    &["value", "limit"],
    &["value", "limit"],
    &["value", "limit"],
    &["value", "limit"],
    &["value", "limit"],
    &["value", "limit"],
    &["value", "options"],
    &["value", "expected"],
    &["value", "format"],
    &["value", "pattern"],
    &["limit"],
    &["limit"],
    &[],
    &["value"],
    &[],
    &[],
    &[],
    &[],
    &[],
    &[],
    &[],
    &["path", "paths"],
    &["types"],
    &["products", "list"],
];
