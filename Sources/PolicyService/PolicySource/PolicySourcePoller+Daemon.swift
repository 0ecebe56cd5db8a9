import NavigationPolicyClient
import NavigationPolicyClientSodium
import PolicySections

extension PolicySourcePoller {
    /// The poller of the config `local` was built from, or nil when it has no `policySource`:
    /// the trusted keys decoded (a key libsodium refuses is logged and left out, so a bundle
    /// naming it is refused as `unknown-key`), reloads sent to it, the last good bundle loaded.
    static func make(
        local: PolicySnapshot, store: PolicyStore, report: PolicySourceReport, log: EventLog,
        fetcher: any PolicySourceFetching = CurlBundleFetcher()
    ) -> PolicySourcePoller? {
        let settings = PolicySourceSettings.from(local.policy)
        guard let url = settings.url, let cacheFile = settings.cacheFile else { return nil }
        var keys: [String: any BundleSignatureVerifier] = [:]
        for (id, base64) in settings.trustedKeys.sorted(by: { $0.key < $1.key }) {
            do {
                keys[id] = try SodiumBundleVerifier(publicKeyBase64: base64)
            } catch {
                log.log(.error, "policy_source.key_refused", ["keyId": .string(id), "reason": .string("\(error)")])
            }
        }
        let poller = PolicySourcePoller(
            settings: settings, url: url, cacheFile: cacheFile, trust: BundleTrust(trustedKeys: keys), local: local,
            store: store, report: report, log: log, fetcher: fetcher)
        store.delegateReloads(to: { [poller] trigger in poller.poll(trigger: trigger) })
        poller.loadCacheFile()
        return poller
    }
}
