import JSONSupport
import ShareIntake

extension IntakeEndpoints {
    /// The intake part of `GET /v1/status`.
    ///
    /// `health` is the seam for the store's own health check: null (shown as "not reported")
    /// until ``IntakeStore`` reports one; then it is that report, the same one `/readyz` uses.
    var statusObject: JSONObject {
        var object = JSONObject()
        switch availability {
        case .open(let store):
            object.append("state", .string("open"))
            object.append("database", (store as? SQLiteIntakeStore).map { .string($0.path) } ?? .null)
        case .disabled:
            object.append("state", .string("disabled"))
            object.append("database", .null)
        case .notConfigured:
            object.append("state", .string("not-configured"))
            object.append("database", .null)
        }
        object.append("tokenRequired", .bool(bearer != nil))
        object.append("health", .null)
        return object
    }
}
