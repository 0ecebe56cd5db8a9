import Testing

@testable import NavigationPolicy

/// An app's own cancelling type, registered beside the built-in ones (a native-only feature:
/// the chain holds it as its protocol).
private struct ShareHandler: CancellingHandler {
    static let typeName = "share"
    static let defaultAction = "share"
    static let locationRule = CancelBehavior.LocationRule.optional
    let name: String
    let behavior: CancelBehavior
}

/// The chain holds each built-in handler as its own `ChainHandler` case (what the WebAssembly
/// build compiles, with no values of protocol type), and an app's registered type as its protocol.
@Suite("Chain handlers: built-in types by case, registered types by protocol")
struct ChainHandlerTests {
    @Test("each built-in type is held as its own case, with its behaviour")
    func builtInCases() throws {
        let policy = try compile(
            #"{"handlers": [{"name": "l", "type": "logout"}, {"name": "a", "type": "about"},"#
                + #"{"name": "p", "type": "payment-redirect"}, {"name": "c", "type": "cancel", "location": "https://l.example/"},"#
                + #"{"name": "ok", "type": "allow"}]}"#)
        let cases = policy.links.map { link -> String in
            switch link.handler {
            case .logout: "logout"
            case .about: "about"
            case .paymentRedirect: "payment-redirect"
            case .cancel: "cancel"
            case .allow: "allow"
            case .registered: "registered"
            }
        }
        #expect(cases == ["logout", "about", "payment-redirect", "cancel", "allow"])
        #expect(policy.links.map { $0.handler.name } == ["l", "a", "p", "c", "ok"])
        #expect(
            policy.links.map { $0.handler.cancelBehavior?.action } == ["logout", "show-about", "open-external", "block", nil])
        #expect(policy.links.map { $0.handler.isAllow } == [false, false, false, false, true])
        #expect(policy.links[3].handler.cancelBehavior?.location?.summary == "https://l.example/")
    }

    @Test("a registered type is held as its protocol and decides, cancels and is listed like a built-in one")
    func registeredType() throws {
        let registry = HandlerRegistry(
            HandlerRegistry.builtIn.typeNames.compactMap { HandlerRegistry.builtIn.type(named: $0) } + [ShareHandler.self])
        #expect(registry.typeNames == ["logout", "about", "payment-redirect", "cancel", "allow", "share"])
        let policy = try PolicyCompiler(registry: registry).compile(
            Array(
                #"{"handlers": [{"name": "s", "type": "share", "action": "share-sheet", "match": {"paths": ["/share"]}}]}"#.utf8))
        let handler = try #require(policy.links.first?.handler)
        guard case .registered(let registered) = handler else {
            Issue.record("\(handler) is not held as registered")
            return
        }
        #expect(registered.handler is ShareHandler)
        #expect(handler.base is ShareHandler)
        #expect(handler.cancelBehavior?.action == "share-sheet")
        #expect(!handler.isAllow)
        let decision = try decide(policy, "https://a.example/share")
        #expect(decision.verdict == .cancel && decision.handler == "s" && decision.action == "share-sheet")
        #expect(try decide(policy, "https://a.example/other").verdict == .allow)
        // The built-in types keep their cases in a registry built from their metatypes.
        let rebuilt = try PolicyCompiler(registry: registry).compile(
            Array(#"{"handlers": [{"name": "l", "type": "logout"}]}"#.utf8))
        guard case .logout = rebuilt.links[0].handler else {
            Issue.record("a built-in type registered by metatype is not held as its case")
            return
        }
    }
}
