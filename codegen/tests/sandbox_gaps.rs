//! `codegen sandbox-gaps` over the real catalogs: no tool lacks sandbox behaviour; and the report
//! names, per product, a tool that would (a `custom` HTTP tool, the not-available handler).

use std::path::Path;

fn repo_catalogs() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../catalog")
}

#[test]
fn every_tool_of_the_real_catalogs_has_sandbox_behaviour() {
    let loaded = codegen::load_all(&repo_catalogs()).unwrap_or_else(|e| panic!("{e}"));
    let gaps = codegen::sandbox_gaps::report(&loaded);
    assert!(gaps.is_empty(), "tools without sandbox behaviour: {gaps:?}");
}

#[test]
fn the_report_names_custom_http_tools_and_not_available_handlers_per_product() {
    let loaded = codegen::load_all(&repo_catalogs()).unwrap_or_else(|e| panic!("{e}"));
    let mut loaded: Vec<_> = loaded
        .into_iter()
        .filter(|l| l.catalog.product.name == "banking")
        .collect();
    let banking = &mut loaded[0].catalog;
    let me = banking
        .tools
        .iter_mut()
        .find(|t| t.name == "banking_admin_me_get")
        .expect("who am I");
    me.operation = None;
    let person = banking
        .tools
        .iter_mut()
        .find(|t| t.name == "banking_data_person_get")
        .expect("person");
    person.handler = Some(codegen::sandbox_gaps::NOT_AVAILABLE_HANDLER.into());
    let gaps = codegen::sandbox_gaps::report(&loaded);
    assert_eq!(
        gaps,
        vec![(
            "banking".to_string(),
            vec![
                "banking_admin_me_get".to_string(),
                "banking_data_person_get".to_string()
            ]
        )]
    );
}
