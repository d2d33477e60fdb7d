//! Interactive views (the MCP Apps extension, `io.modelcontextprotocol/ui`, spec 2026-01-26): the
//! static shape of a product's views, as the generator compiles a catalog's `views:` section.
//!
//! A view is an HTML page the host renders in a sandboxed iframe next to a tool's result. It is a
//! resource (`ui://<product>/<name>`, `text/html;profile=mcp-app`) that the tools it is attached
//! to name in `_meta.ui.resourceUri`. The tables live apart from [`crate::catalog::Product`] so
//! that a client without the extension is served from tables that never changed; the runtime's
//! views extension (`runtime/src/views/`) is the only reader.

/// The extension's identifier, the key under `capabilities.extensions`.
pub const EXTENSION_ID: &str = "io.modelcontextprotocol/ui";

/// The MIME type of a view's HTML.
pub const MIME_TYPE: &str = "text/html;profile=mcp-app";

/// The URI scheme of views.
pub const URI_SCHEME: &str = "ui://";

/// The marker in a view's page where the runtime writes the page's settings for one reader
/// (locale, the write buttons this identity may press): a JSON object inside a
/// `<script type="application/json">` element.
pub const SETTINGS_MARKER: &str = "/*kobana-view-settings*/";

/// The `_meta` key of a tool result under which the views extension puts the barcodes and QR
/// codes it drew from the result's record (the view draws their modules, it encodes nothing).
pub const CODES_META: &str = "com.kobana/codes";

/// How a field's value is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CodeFormat {
    /// Interleaved 2 of 5 (the FEBRABAN billet barcode, 44 digits).
    Itf,
    /// A QR code (a Pix "copia e cola" EMV payload).
    Qr,
}

impl CodeFormat {
    /// Its name in the catalog and on the wire.
    pub const fn name(self) -> &'static str {
        match self {
            CodeFormat::Itf => "itf",
            CodeFormat::Qr => "qr",
        }
    }

    pub fn from_name(name: &str) -> Option<CodeFormat> {
        match name {
            "itf" => Some(CodeFormat::Itf),
            "qr" => Some(CodeFormat::Qr),
            _ => None,
        }
    }
}

/// A value of the record drawn as a code: `field` is a field of the record, or `field.key` for a
/// key of an object field (`qrcode.emv`).
#[derive(Debug, Clone, Copy)]
pub struct Code {
    pub field: &'static str,
    pub format: CodeFormat,
}

/// A button of a view that calls a tool through the host (`tools/call`, with the server's own
/// confirmation when the tool is destructive). Shown only to an identity that may call the tool.
#[derive(Debug, Clone, Copy)]
pub struct Action {
    pub tool: &'static str,
    /// The tool's arguments, each taken from a field of the record: (argument, field).
    pub arguments: &'static [(&'static str, &'static str)],
}

/// One view of a product.
#[derive(Debug, Clone, Copy)]
pub struct View {
    /// Its name, unique in the product.
    pub name: &'static str,
    /// `ui://<product>/<name>`.
    pub uri: &'static str,
    /// The record type whose fields it shows.
    pub record: &'static str,
    /// The tools whose results it shows (`_meta.ui.resourceUri`, visible to model and view).
    pub tools: &'static [&'static str],
    /// Tools only this view calls: listed to a client with the extension with
    /// `_meta.ui.visibility: ["app"]`, so a host keeps them from the model.
    pub app_tools: &'static [&'static str],
    /// The record's fields it shows, in order.
    pub fields: &'static [&'static str],
    pub codes: &'static [Code],
    pub actions: &'static [Action],
    /// Its title and description, by [`crate::locale::Locale::index`].
    pub titles: [&'static str; 3],
    pub descriptions: [&'static str; 3],
    /// The page, with [`SETTINGS_MARKER`] where the runtime writes its settings.
    pub html: &'static str,
}

/// The views of one product.
#[derive(Debug, Clone, Copy)]
pub struct ProductViews {
    pub product: &'static str,
    pub views: &'static [View],
}

impl ProductViews {
    /// The view at `uri`.
    pub fn view(&self, uri: &str) -> Option<&'static View> {
        self.views.iter().find(|v| v.uri == uri)
    }

    /// The view attached to `tool` (the first, when several are).
    pub fn view_of_tool(&self, tool: &str) -> Option<&'static View> {
        self.views.iter().find(|v| v.tools.contains(&tool))
    }

    /// Whether `tool` is one that only a view calls.
    pub fn app_only(&self, tool: &str) -> Option<&'static View> {
        self.views.iter().find(|v| v.app_tools.contains(&tool))
    }
}

/// A resource's `_meta.ui` for a view: a content security policy that allows no origin outside
/// the page (every view is self-contained: no CDN, no remote font, no request out), and a border.
pub fn resource_meta_json() -> &'static str {
    r#"{"ui":{"csp":{"connectDomains":[],"resourceDomains":[],"frameDomains":[],"baseUriDomains":[]},"prefersBorder":true}}"#
}
