import JSONSupport
import ShareIntake

extension IntakeEndpoints {
    /// The intake part of `GET /v1/status`.
    ///
    /// `health` is the store's own report, the same one `/readyz/intake` uses (`{"status": "ok"}` or
    /// `{"status": "unavailable", "fault": …}`); null when intake has no store.
    var statusObject: JSONObject {
        var object = JSONObject()
        switch availability {
        case .open(let store):
            object.append("state", .string("open"))
            object.append("database", .string(store.displayLocation))
        case .disabled:
            object.append("state", .string("disabled"))
            object.append("database", .null)
        case .notConfigured:
            object.append("state", .string("not-configured"))
            object.append("database", .null)
        }
        object.append("tokenRequired", .bool(bearer != nil))
        if let health {
            var report: JSONObject = ["status": .string(health.fault == nil ? "ok" : "unavailable")]
            if let fault = health.fault { report.append("fault", .string(fault.rawValue)) }
            object.append("health", .object(report))
        } else {
            object.append("health", .null)
        }
        return object
    }
}
