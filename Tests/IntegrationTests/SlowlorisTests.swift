import Foundation
import TestSelection
import Testing

/// Finding 5: slowloris. libmicrohttpd's idle timeout restarts with every byte, so 1,100
/// connections dripping one header byte a second used to take every slot of both listeners.
@Suite("slowloris defence", .serialized, .tags(.live, .sanitizerRelevant))
struct SlowlorisTests {
    @Test("1,100 dripping connections per listener neither lock out other clients nor outlive the head timeout")
    func dripFeedingClientsAreBoundedAndOthersStillGetIn() throws {
        #expect(raiseDescriptorLimit() >= 4_096, "the test needs 2,200 sockets")
        let origin = try TestOrigin()
        let config = proxyTestConfig(origin: origin)
            .replacingOccurrences(of: #""proxy":"#, with: #""server": {"headTimeoutSeconds": 3}, "proxy":"#)
        let daemon = try DaemonProcess(config: config, arguments: ["--proxy-listen", "127.0.0.1:0"])
        let proxyPort = try daemon.proxyPort()

        let started = Date()
        let api = try SlowClients(count: 1_100, port: daemon.port)
        let proxy = try SlowClients(count: 1_100, port: proxyPort)
        api.drip()
        proxy.drip()
        Thread.sleep(forTimeInterval: 1)
        api.drip()
        proxy.drip()

        // While the slow clients hold what they can, a normal client answers within 1 s.
        let quick = ["--max-time", "1"]
        let health = try Curl.request(daemon.baseURL + "/healthz", quick)
        #expect(health.status == 200, "API /healthz while slow clients hold connections")
        let decide = try Curl.request(daemon.baseURL + "/v1/decide?url=https://app.example.com/logout", quick)
        #expect(decide.status == 200, "API /v1/decide while slow clients hold connections")
        let proxied = try Curl.request(origin.baseURL + "/through-the-proxy", quick + ["-x", "127.0.0.1:\(proxyPort)"])
        #expect(proxied.status == 200, "proxy listener while slow clients hold connections")

        // The head timeout (3 s) closes every one of them; drip on until then.
        while api.stillOpen + proxy.stillOpen > 0, Date().timeIntervalSince(started) < 12 {
            Thread.sleep(forTimeInterval: 1)
            api.drip()
            proxy.drip()
        }
        #expect(api.stillOpen == 0, "\(api.stillOpen) slow API connections outlived the head timeout")
        #expect(proxy.stillOpen == 0, "\(proxy.stillOpen) slow proxy connections outlived the head timeout")
        let cut = daemon.waitForLog(timeout: 2) { $0.contains(#""event":"http.connections_cut""#) }
        #expect(cut?.contains(#""lastRemoteAddress":"127.0.0.2""#) == true)
        #expect(Date().timeIntervalSince(started) < 30)
    }

    @Test("the server settings that bound slow clients are validated with pointers")
    func settingsAreValidated() throws {
        let config = try BinaryRunner.temporaryFile(
            #"{"defaultDecision":"allow","handlers":[],"server":{"headTimeoutSeconds":0,"minBodyBytesPerSecond":-1,"#
                + #""bodyRateGraceSeconds":"5","perIPConnectionLimit":100001}}"#)
        let result = try BinaryRunner.run(["validate", "--config", config])
        #expect(result.status == 1)
        for message in [
            "/server/headTimeoutSeconds: 0 is out of range 1...3600",
            "/server/minBodyBytesPerSecond: -1 is out of range 0...1073741824",
            "/server/bodyRateGraceSeconds: expected a whole number", "/server/perIPConnectionLimit: 100001 is out of range",
        ] {
            #expect(result.stderr.contains(message), "\(message) in \(result.stderr)")
        }
        // A config without the section gets the defaults: a running daemon says which.
        let daemon = try DaemonProcess()
        let started = try #require(daemon.waitForLog { $0.contains(#""event":"http.started""#) })
        #expect(started.contains(#""perIPConnectionLimit":256"#) && started.contains(#""headTimeoutSeconds":10"#))
        #expect(started.contains(#""connectionLimit":4096"#) && started.contains(#""minBodyBytesPerSecond":1024"#))
    }
}
