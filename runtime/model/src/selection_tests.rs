//! Tests of the selection rule piece by piece (issue 42: each fails on some change cargo-mutants
//! makes to `selection.rs`).

use super::tests::{spec, tool};
use super::*;
use crate::catalog::{Tool, Toolset};

static TOOLS: [Tool; 3] = [
    tool("p_list", true),
    tool("p_cancel", false),
    tool("p_show", true),
];
static SETS: [Toolset; 2] = [
    Toolset {
        name: "main",
        title: "",
        description: "",
        default: true,
        tools: &[0, 1],
    },
    Toolset {
        name: "extra",
        title: "",
        description: "",
        default: false,
        tools: &[2],
    },
];
static PRODUCT: Product = Product {
    toolsets: &SETS,
    ..Product::bare("p", &TOOLS)
};

fn names(s: &Selection) -> Vec<&'static str> {
    s.visible_names(&PRODUCT)
}

/// A header's or path's list: names trimmed, empty ones dropped, order kept.
#[test]
fn a_list_keeps_its_names_trimmed_and_drops_empty_ones() {
    assert_eq!(
        SelectionSpec::list(" main , ,extra,, p_list "),
        ["main", "extra", "p_list"]
    );
    assert!(SelectionSpec::list("").is_empty());
    assert!(SelectionSpec::list(" , ,").is_empty());
}

/// A spec names nothing only when every part of it is unset: read-only alone, an exclusion alone,
/// or an empty list of toolsets or tools each name something.
#[test]
fn a_spec_names_nothing_only_when_every_part_is_unset() {
    assert!(SelectionSpec::default().names_nothing());
    let some = [
        SelectionSpec {
            read_only: true,
            ..Default::default()
        },
        SelectionSpec {
            exclude_tools: vec!["p_cancel".into()],
            ..Default::default()
        },
        SelectionSpec {
            toolsets: Some(vec![]),
            ..Default::default()
        },
        SelectionSpec {
            tools: Some(vec![]),
            ..Default::default()
        },
    ];
    for spec in some {
        assert!(!spec.names_nothing(), "{spec:?}");
    }
}

/// A request asking for read-only alone (the `/readonly/mcp` path) loses every write tool, even
/// on a server that offers them: it is not mistaken for a request naming nothing.
#[test]
fn a_read_only_request_alone_drops_the_write_tools() {
    let c = Ceiling::new(&PRODUCT, &SelectionSpec::default()).unwrap();
    assert_eq!(names(&c.default_selection()), ["p_list", "p_cancel"]);
    let ro = c
        .narrow(&SelectionSpec {
            read_only: true,
            ..Default::default()
        })
        .unwrap();
    assert_eq!(names(&ro), ["p_list"]);
    assert!(!ro.reachable(1), "the write tool is not reachable either");
    assert!(
        ro.reachable(2),
        "a read-only tool outside the default stays reachable"
    );
}

/// The count of a set is its members, whatever their number (more than one word of 64 too).
#[test]
fn a_tool_set_counts_its_members() {
    let mut s = ToolSet::empty(130);
    assert_eq!(s.len(), 0);
    assert!(s.is_empty());
    s.insert(129);
    assert_eq!(s.len(), 1);
    assert!(!s.is_empty());
    s.insert(0);
    s.insert(64);
    assert_eq!(s.len(), 3);
    assert_eq!(ToolSet::full(130).len(), 130);
    s.remove(129);
    assert_eq!(s.len(), 2);
}

/// How many tools a selection lists: what its names say.
#[test]
fn the_visible_count_is_the_number_of_tools_listed() {
    let c = Ceiling::new(&PRODUCT, &SelectionSpec::default()).unwrap();
    assert_eq!(c.default_selection().visible_count(), 2);
    assert_eq!(c.narrow(&spec(&["all"])).unwrap().visible_count(), 3);
    assert_eq!(c.narrow(&spec(&["extra"])).unwrap().visible_count(), 1);
    let none = c.narrow(&spec(&["discovery"])).unwrap();
    assert_eq!(none.visible_count(), 0);
    assert_eq!(Selection::everything(&PRODUCT).visible_count(), 3);
}

/// Discovery is on only where it was asked for: a server without it, and a request that names
/// toolsets without `discovery`, have no discovery tools (they would reach every allowed tool).
#[test]
fn discovery_is_on_only_where_it_was_named() {
    assert!(!Selection::everything(&PRODUCT).discovery());
    let plain = Ceiling::new(&PRODUCT, &SelectionSpec::default()).unwrap();
    assert!(!plain.default_selection().discovery());
    // A request naming tools or exclusions only, on a server without discovery: still off.
    let tools_only = SelectionSpec {
        tools: Some(vec!["p_show".into()]),
        ..Default::default()
    };
    assert!(!plain.narrow(&tools_only).unwrap().discovery());
    let ro = SelectionSpec {
        read_only: true,
        ..Default::default()
    };
    assert!(!plain.narrow(&ro).unwrap().discovery());
    assert!(!plain.narrow(&spec(&["extra"])).unwrap().discovery());

    let with = Ceiling::new(&PRODUCT, &spec(&["main"]).with_discovery()).unwrap();
    assert!(with.default_selection().discovery());
    // Naming no toolset keeps the server's discovery; naming toolsets without it turns it off.
    assert!(with.narrow(&tools_only).unwrap().discovery());
    assert!(with.narrow(&ro).unwrap().discovery());
    assert!(!with.narrow(&spec(&["main"])).unwrap().discovery());
    assert!(with.narrow(&spec(&["discovery"])).unwrap().discovery());
}

/// Two sources of one request (its URL path and its headers) get discovery only when both ask
/// for it, like every other part of the selection.
#[test]
fn an_intersection_has_discovery_only_when_both_have_it() {
    let c = Ceiling::new(&PRODUCT, &SelectionSpec::default()).unwrap();
    let on = c.narrow(&spec(&["main", "discovery"])).unwrap();
    let off = c.narrow(&spec(&["main"])).unwrap();
    assert!(on.discovery() && !off.discovery());
    assert!(!on.intersect(&off).discovery());
    assert!(!off.intersect(&on).discovery());
    assert!(on.intersect(&on).discovery());
    assert!(!off.intersect(&off).discovery());
}
