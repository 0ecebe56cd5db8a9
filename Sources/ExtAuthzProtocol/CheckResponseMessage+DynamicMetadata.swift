extension CheckResponseMessage {
    /// The serialized message with `dynamic_metadata` (field 4, a `google.protobuf.Struct`)
    /// holding `fields` as string values: Envoy's ext_authz filter puts them in the request's
    /// dynamic metadata under its own name (`envoy.filters.http.ext_authz`), where an access log
    /// reads them (`%DYNAMIC_METADATA(envoy.filters.http.ext_authz:KEY)%`).
    ///
    /// `Struct` is `map<string, Value> fields = 1` (entry: key 1, value 2); `Value.string_value`
    /// is 3 (checked against `xds-protos`). A field may follow the others on the wire, so the
    /// metadata is appended to ``serialized`` as it is.
    public func serialized(dynamicMetadata fields: [(key: String, value: String)]) -> [UInt8] {
        var writer = ProtobufWriter()
        writer.message(4) { metadata in
            for field in fields {
                metadata.message(1) { entry in
                    entry.string(1, field.key)
                    entry.message(2) { value in value.string(3, field.value) }
                }
            }
        }
        return serialized + writer.bytes
    }
}
