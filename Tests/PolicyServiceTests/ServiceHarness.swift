import Foundation
import HTTPServer
import JSONSupport
import ShareIntake
import TestScratchSupport
import Testing

@testable import PolicyService

/// The policy the in-process tests decide with: one cancelling handler with a location
/// (logout), one without (about), the rest allowed.
let serviceTestConfig = """
    {
      "defaultDecision": "allow",
      "handlers": [
        { "name": "logout", "type": "logout", "match": { "paths": ["/logout"] } },
        { "name": "about", "type": "about", "match": { "paths": ["/about"] } }
      ]
    }
    """

/// A token that passes the admin-token rules.
let serviceTestToken = "Qx7-vR2p_Lm9sT4wZk8Nc3Hd"

/// The daemon's API assembled in-process — policy store, metrics, recorder, intake store in
/// a temporary directory — and driven with `HTTPRequest` values: no socket, no process, so
/// these tests run in parallel.
struct ServiceHarness {
    enum Intake {
        case open(token: String?)
        case disabled
        case notConfigured
    }

    let api: PolicyAPI
    /// The factory `api` came from, for the API and admin surfaces of a split listener.
    let services: ServiceFactory
    let metrics: Metrics
    let store: PolicyStore
    let configPath: String
    let decisionLogPath: String
    private let decisionLog: DecisionLog?

    init(
        config: String? = serviceTestConfig, adminToken: String? = nil, requireTokenForDecide: Bool = false,
        intake: Intake = .open(token: nil)
    ) throws {
        let directory = TestScratch.root + "/policy-service-tests-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        configPath = directory + "/navpolicy.json"
        decisionLogPath = directory + "/decisions.ndjson"
        let snapshot: PolicySnapshot?
        if let config {
            try config.write(toFile: configPath, atomically: true, encoding: .utf8)
            snapshot = try PolicySnapshot.build(from: Array(config.utf8)).get()
        } else {
            snapshot = nil
        }
        let store = PolicyStore(configPath: configPath, initial: snapshot)
        let settings = snapshot.map { IntakeSettings.from($0.policy) } ?? IntakeSettings()
        let intakeSource: ServiceFactory.IntakeSource
        switch intake {
        case .open(let token):
            intakeSource = .open(
                try SQLiteIntakeStore(path: directory + "/intake.sqlite"), settings: settings,
                token: try token.map { try AdminToken.parse($0).get() })
        case .disabled: intakeSource = .disabled(settings)
        case .notConfigured: intakeSource = .notConfigured(settings)
        }
        // The daemon's own factory, so these tests drive what the daemon serves.
        let services = try ServiceFactory(
            store: store, version: "test", log: EventLog { _ in }, decisionLogPath: decisionLogPath,
            adminToken: try adminToken.map { try AdminToken.parse($0).get() },
            requireTokenForDecide: requireTokenForDecide, intake: intakeSource, restartOnly: RestartOnlySettings(snapshot),
            notifier: nil, openConnections: { 3 })
        api = services.api(.all)
        self.services = services
        decisionLog = services.decisionLog
        self.store = store
        self.metrics = services.metrics
    }

    /// Answers one request, waiting for a `.later` or `.deferred` answer.
    func send(
        _ method: String, _ target: String, headers: [(String, String)] = [], body: String = ""
    ) async -> HTTPResponse {
        let request = HTTPRequest(method: method, rawTarget: target, headers: HTTPHeaders(headers), body: Array(body.utf8))
        switch api.respond(to: request) {
        case .now(let response):
            return response
        case .later(let work):
            return await work()
        case .deferred(let start):
            // In process there is no connection to leave: the client stays.
            return await withCheckedContinuation { continuation in
                start({ response in continuation.resume(returning: response) }, .unknown)
            }
        case .takeOver:
            // Only the proxy listener takes connections over (CONNECT); the API never does.
            return HTTPResponse(status: 599)
        }
    }

    /// The decision-log lines written so far (closes the log: call once, at the end).
    func closeDecisionLog() throws -> [String] {
        decisionLog?.close()
        let text = try String(contentsOfFile: decisionLogPath, encoding: .utf8)
        return text.split(separator: "\n").map(String.init)
    }

    /// The scrape text.
    func metricsText() async -> String {
        String(decoding: await send("GET", "/metrics").bodyBytes, as: UTF8.self)
    }
}

extension HTTPResponse {
    /// The body parsed as a JSON object (empty when it is not one).
    var object: JSONObject {
        guard case .object(let object)? = try? JSONParser().parse(bodyBytes) else { return [:] }
        return object
    }

    /// The problem `type` without the daemon's prefix.
    var problemKind: String? {
        object["type"]?.stringValue.map { String($0.dropFirst(ProblemRenderer.typePrefix.count)) }
    }

    var text: String { String(decoding: bodyBytes, as: UTF8.self) }
}

extension JSONValue {
    /// The member `key` of an object (nil for other values).
    subscript(key: String) -> JSONValue? {
        guard case .object(let object) = self else { return nil }
        return object[key]
    }
}
