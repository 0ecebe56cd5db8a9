import Foundation

/// Debian's nginx (nginx-light) running deploy/nginx/navpolicyd-auth-request.conf in a
/// temporary prefix: `daemon off`, pid, logs and temp files inside it, free ports.
final class NginxProcess: Sendable {
    let process: Process
    let port: Int
    let prefix: URL

    /// Starts nginx with the shipped server block, pointed at `navpolicydPort` and `appPort`.
    init(navpolicydPort: Int, appPort: Int) throws {
        prefix = FileManager.default.temporaryDirectory.appendingPathComponent("navpolicyd-nginx-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: prefix, withIntermediateDirectories: true)
        port = try freeLoopbackPort()
        let shipped = try String(
            contentsOf: BinaryRunner.packageRoot.appendingPathComponent("deploy/nginx/navpolicyd-auth-request.conf"),
            encoding: .utf8)
        guard shipped.contains("server_name app.example.com;") else {
            throw DaemonError("deploy/nginx: the server_name line the tests extend is gone")
        }
        let server =
            shipped
            .replacingOccurrences(of: "127.0.0.1:8080", with: "127.0.0.1:\(navpolicydPort)")
            .replacingOccurrences(of: "127.0.0.1:3000", with: "127.0.0.1:\(appPort)")
            .replacingOccurrences(of: "127.0.0.1:8088", with: "127.0.0.1:\(port)")
            // The tests connect by address: that name joins the shipped allow-list, which
            // stays as shipped (app.example.com passes, every other name is refused).
            .replacingOccurrences(of: "server_name app.example.com;", with: "server_name app.example.com 127.0.0.1;")
        let directory = prefix.path
        let main = """
            daemon off;
            worker_processes 1;
            pid \(directory)/nginx.pid;
            error_log \(directory)/error.log warn;
            events { worker_connections 256; }
            http {
                access_log off;
                client_body_temp_path \(directory)/client_body;
                proxy_temp_path \(directory)/proxy;
                fastcgi_temp_path \(directory)/fastcgi;
                uwsgi_temp_path \(directory)/uwsgi;
                scgi_temp_path \(directory)/scgi;
            \(server)
            }
            """
        let configPath = prefix.appendingPathComponent("nginx.conf").path
        try Data(main.utf8).write(to: URL(fileURLWithPath: configPath))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/sbin/nginx")
        process.arguments = ["-p", directory, "-e", "\(directory)/error.log", "-c", configPath]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        self.process = process
        guard waitForListener(port: port) else {
            process.terminate()
            let log = (try? String(contentsOfFile: "\(directory)/error.log", encoding: .utf8)) ?? ""
            throw DaemonError("nginx did not start: \(log)")
        }
    }

    var baseURL: String { "http://127.0.0.1:\(port)" }

    deinit {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: prefix)
    }
}
