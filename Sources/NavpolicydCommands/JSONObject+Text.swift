import JSONSupport

extension JSONObject {
    /// Compact JSON text of the object.
    var serializedJSON: String { JSONValue.object(self).serialized }
}
