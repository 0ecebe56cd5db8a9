import JSONSupport
import Testing

@testable import NavigationPolicy
@testable import PolicyAuthoring

/// A handler type with a parameter the analysis does not model: what a type added later looks
/// like before ``ModelledFields`` lists its field.
private struct RetryingCancelHandler: ConfigurableHandler {
    static let typeName = "retrying-cancel"
    static let parameterKeys = ["retries"]
    let name: String
    let retries: Int

    init?(name: String, parameters: ConfigObject, diagnostics: inout ConfigDiagnostics) {
        self.name = name
        retries = parameters.object["retries"]?.integerValue ?? 0
    }

    func decide(_ request: CanonicalRequest) -> Decision? {
        Decision(verdict: .cancel, handler: name, action: "retry-\(retries)", location: nil, url: request.href)
    }
}

@Suite("Analysis: the model is checked against the engine's types")
struct ModelledFieldsTests {
    @Test("the built-in types are modelled completely")
    func builtInComplete() throws {
        #expect(ModelledFields.unmodelledEngineFields.isEmpty, "\(ModelledFields.unmodelledEngineFields)")
        let policy = try compile(
            #"{"handlers": [{"name": "a", "type": "allow"}, {"name": "c", "type": "cancel", "location": "https://l.example/"},"#
                + #"{"name": "l", "type": "logout"}, {"name": "b", "type": "about"}, {"name": "p", "type": "payment-redirect"}]}"#
        )
        #expect(ModelledFields.unknownReason(policy.links) == nil)
    }

    @Test("a handler field the model does not list makes equivalence and unreachability unknown, naming it")
    func unlistedFieldIsUnknown() throws {
        let compiler = PolicyCompiler(
            registry: HandlerRegistry(
                HandlerRegistry.builtIn.typeNames.compactMap {
                    HandlerRegistry.builtIn.type(named: $0)
                } + [RetryingCancelHandler.self]))
        func policy(_ retries: Int) throws -> CompiledPolicy {
            try compiler.compile(
                Array(
                    #"""
                    {"handlers": [{"name": "r", "type": "retrying-cancel", "retries": \#(retries), "match": {"hosts": ["a.example"]}},
                                  {"name": "late", "type": "cancel", "match": {"hosts": ["a.example"]}}]}
                    """#.utf8))
        }
        let compared = PolicyAnalysis.equivalence(try policy(1), try policy(2))
        #expect(compared.equivalent != true)
        #expect(compared.unknownReasons.contains { $0.contains("RetryingCancelHandler.retries") }, "\(compared.unknownReasons)")
        let reached = PolicyAnalysis.reachability(try policy(1))
        #expect(reached[1].reachable == nil, "\(reached[1])")
        // Its type is not a known one either, which that reason names.
        #expect(reached[1].unknownReason != nil)
    }
}
