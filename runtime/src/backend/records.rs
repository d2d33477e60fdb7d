//! Helpers over backend answers that the protocol layer needs whatever the backend is.

use serde_json::Value;

/// Removes the numeric `id` from a record, a list of records, or a `{data: …}` envelope, where
/// the record also carries a string `uid`. Resources show records without it, as the product
/// documents say; tool results keep it, as the API does. Call it on a resource read's JSON.
pub fn strip_numeric_id(value: &mut Value) {
    match value {
        Value::Array(items) => items.iter_mut().for_each(strip_numeric_id),
        Value::Object(map) => {
            if let Some(data) = map.get_mut("data") {
                if data.is_object() || data.is_array() {
                    strip_numeric_id(data);
                    return;
                }
            }
            if map.get("id").is_some_and(Value::is_number) && map.contains_key("uid") {
                map.remove("id");
            }
        }
        _ => {}
    }
}

/// The record of a get answer: the `data` object of a `/v2` envelope, or the bare object.
pub fn record(value: &Value) -> Option<&serde_json::Map<String, Value>> {
    match value {
        Value::Object(m) => match m.get("data") {
            Some(Value::Object(inner)) if m.contains_key("status") => Some(inner),
            _ => Some(m),
        },
        _ => None,
    }
}

/// The records of a list answer: a bare array, or the `data` array of an envelope.
pub fn list_items(value: &Value) -> Option<&Vec<Value>> {
    match value {
        Value::Array(a) => Some(a),
        Value::Object(m) => m.get("data").and_then(Value::as_array),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn numeric_id_is_dropped_only_next_to_a_uid() {
        let mut v = json!({"status": 200, "data": [{"id": 7, "uid": "a"}, {"id": 8}]});
        strip_numeric_id(&mut v);
        assert_eq!(v, json!({"status": 200, "data": [{"uid": "a"}, {"id": 8}]}));
        let mut bare = json!({"id": 1, "uid": "x", "name": "n"});
        strip_numeric_id(&mut bare);
        assert_eq!(bare, json!({"uid": "x", "name": "n"}));
        let mut string_id = json!({"id": "e1", "subject": "s"});
        strip_numeric_id(&mut string_id);
        assert_eq!(string_id, json!({"id": "e1", "subject": "s"}));
    }

    #[test]
    fn records_are_found_in_both_shapes() {
        let v2 = json!({"status": 200, "data": {"uid": "a"}});
        assert_eq!(record(&v2).unwrap()["uid"], "a");
        let v1 = json!({"uid": "b", "data": "x"});
        assert_eq!(record(&v1).unwrap()["uid"], "b");
        assert_eq!(list_items(&json!([1, 2])).unwrap().len(), 2);
        assert_eq!(list_items(&json!({"data": [1]})).unwrap().len(), 1);
        assert!(list_items(&json!({"x": 1})).is_none());
    }
}
