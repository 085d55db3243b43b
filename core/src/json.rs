//! Small readers over `serde_json::Value` that the view and the area facts share.

use serde_json::Value;

/// A JSON object of these fields, the values moved in. `json!` would serialize each value
/// again, which costs on facts that hold lists as long as the cluster.
pub fn object<'k>(fields: impl IntoIterator<Item = (&'k str, Value)>) -> Value {
    Value::Object(
        fields
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect(),
    )
}

/// A non-empty string at a JSON pointer.
pub fn str_at<'v>(v: &'v Value, ptr: &str) -> Option<&'v str> {
    v.pointer(ptr)
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
}

/// A non-empty label value.
pub fn label<'v>(v: &'v Value, key: &str) -> Option<&'v str> {
    v.pointer("/metadata/labels")
        .and_then(|l| l.get(key))
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
}

/// The DeviceClass names a DRA device request names, in every API shape: v1/v1beta2
/// `exactly.deviceClassName`, v1beta1 `deviceClassName`, and each `firstAvailable` alternative.
pub fn request_device_classes(req: &Value) -> Vec<&str> {
    let mut names: Vec<&str> = Vec::new();
    names.extend(req["deviceClassName"].as_str());
    names.extend(
        req.pointer("/exactly/deviceClassName")
            .and_then(Value::as_str),
    );
    for alt in req["firstAvailable"].as_array().into_iter().flatten() {
        names.extend(alt["deviceClassName"].as_str());
    }
    names
}
