import Foundation
import Testing

/// The Debian packages the deploy files install must cover every shared library the binary
/// links, or the container crash-loops with exit 127 and the systemd unit fails at exec.
///
/// The binary's `NEEDED` entries (`readelf -d`, binutils) are resolved to files (`ldd`) and
/// mapped to Debian packages (`dpkg -S`). Not required from the lists:
/// - the Swift runtime (`libswift*`, `libFoundation*`, `lib_Foundation*`, `libdispatch`,
///   `libBlocksRuntime`, resolved inside the toolchain and owned by no package): both deploy
///   paths build with `--static-swift-stdlib`, which links it into the binary (checked below);
/// - `libc6`, `libgcc-s1` and `libstdc++6`: essential in every Debian system, including
///   `debian:bookworm-slim`.
///
/// The lists are the `apt-get install` command after a `# runtime-packages` comment in
/// `deploy/container/Containerfile` (runtime stage) and `deploy/systemd/README.md`; a listed
/// package the binary does not link fails too, unless it is one of ``extraPackages``.
@Suite("shipped runtime dependencies")
struct ShippedDependenciesTests {
    static let basePackages: Set<String> = ["libc6", "libgcc-s1", "libstdc++6"]
    /// Listed although no library needs them: the CA bundle libcurl verifies https upstreams with.
    static let extraPackages: Set<String> = ["ca-certificates"]
    static let swiftRuntimePrefixes = ["libswift", "libFoundation", "lib_Foundation", "libdispatch.", "libBlocksRuntime."]
    static let listedFiles = ["deploy/container/Containerfile", "deploy/systemd/README.md"]

    @Test("the Containerfile runtime stage and the systemd install step list exactly the packages the binary links")
    func runtimePackagesCoverTheBinary() throws {
        let required = try Self.requiredPackages(of: BinaryRunner.binary.path)
        #expect(required.contains("libmicrohttpd12"), "the probe found no libmicrohttpd: \(required.sorted())")
        for file in Self.listedFiles {
            let text = try Self.read(file)
            let listed = try Self.packages(after: "# runtime-packages", in: text, file: file)
            for package in required.subtracting(listed).sorted() {
                Issue.record("\(file): the runtime packages lack \(package), which the binary links; listed: \(listed.sorted())")
            }
            // Stale entries too (say, libicu72 once IDNA no longer needs ICU): every package
            // installed is one more to patch.
            for package in listed.subtracting(required).subtracting(Self.extraPackages).sorted() {
                let advice = "remove it, or add it to extraPackages with the reason"
                Issue.record("\(file): the runtime packages list \(package), which the binary does not link; \(advice)")
            }
            // The Swift runtime is not in the lists because it is linked in statically.
            #expect(text.contains("--static-swift-stdlib"), "\(file) no longer builds with --static-swift-stdlib")
        }
    }

    @Test("the Containerfile build stage installs every build package of scripts/install-deps.sh")
    func buildStageHasTheBuildPackages() throws {
        let script = try Self.read("scripts/install-deps.sh")
        let line = try #require(script.split(separator: "\n").first { $0.hasPrefix("build_packages=(") })
        let wanted = Set(line.dropFirst("build_packages=(".count).prefix { $0 != ")" }.split(separator: " ").map(String.init))
        #expect(!wanted.isEmpty)
        let file = "deploy/container/Containerfile"
        let listed = try Self.packages(after: "# build-packages", in: try Self.read(file), file: file)
        for package in wanted.subtracting(listed).sorted() {
            Issue.record("\(file): the build stage lacks \(package) (scripts/install-deps.sh build); listed: \(listed.sorted())")
        }
    }

    // MARK: - The binary's packages

    /// The Debian packages that provide the binary's direct dependencies, minus the exemptions.
    static func requiredPackages(of binary: String) throws -> Set<String> {
        let dynamic = try Curl.standardOutput(of: "/usr/bin/readelf", ["-d", "-W", binary])
        let needed = dynamic.split(separator: "\n").compactMap { line -> String? in
            guard line.contains("(NEEDED)"), let open = line.firstIndex(of: "["), let close = line.lastIndex(of: "]"),
                open < close
            else { return nil }
            return String(line[line.index(after: open)..<close])
        }
        #expect(!needed.isEmpty, "readelf found no NEEDED entries in \(binary)")
        let resolved = resolvedPaths(try Curl.standardOutput(of: "/usr/bin/ldd", [binary]))
        var packages: Set<String> = []
        for library in needed {
            guard let path = resolved[library] else {
                Issue.record("\(library) (NEEDED by \(binary)) does not resolve on this machine (ldd)")
                continue
            }
            if let owners = try owningPackages(of: path) {
                packages.formUnion(owners)
            } else if !swiftRuntimePrefixes.contains(where: library.hasPrefix) {
                Issue.record("\(library) resolves to \(path), which no Debian package provides")
            }
        }
        return packages.subtracting(basePackages)
    }

    /// `ldd` lines `name => /path (0x…)`, and `/path (0x…)` for the dynamic loader.
    static func resolvedPaths(_ output: String) -> [String: String] {
        var paths: [String: String] = [:]
        for line in output.split(separator: "\n") {
            let parts = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            if parts.count == 2, parts[0].hasPrefix("/") {
                paths[(String(parts[0]) as NSString).lastPathComponent] = String(parts[0])
                continue
            }
            guard parts.count >= 3, parts[1] == "=>", parts[2].hasPrefix("/") else { continue }
            paths[parts[0].trimmingCharacters(in: .whitespaces)] = String(parts[2])
        }
        return paths
    }

    /// `dpkg -S` for the path, its real path and their merged-/usr twins; nil when unowned.
    static func owningPackages(of path: String) throws -> Set<String>? {
        let real = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
        var candidates: [String] = []
        for candidate in [path, real] {
            candidates.append(candidate)
            if candidate.hasPrefix("/usr/lib/") { candidates.append(String(candidate.dropFirst(4))) }
            if candidate.hasPrefix("/lib") { candidates.append("/usr" + candidate) }
        }
        for candidate in candidates {
            let output = try Curl.standardOutput(of: "/usr/bin/dpkg", ["-S", candidate])
            guard let line = output.split(separator: "\n").first, let separator = line.range(of: ": ") else { continue }
            let owners = line[..<separator.lowerBound].split(separator: ",").map {
                String($0.trimmingCharacters(in: .whitespaces).prefix { $0 != ":" })
            }
            if !owners.isEmpty { return Set(owners) }
        }
        return nil
    }

    // MARK: - The lists in the deploy files

    static func read(_ relativePath: String) throws -> String {
        try String(contentsOf: BinaryRunner.packageRoot.appendingPathComponent(relativePath), encoding: .utf8)
    }

    /// The package names of the first `apt-get install` after the marker comment, across
    /// backslash continuations, up to the end of the command (`&&`, `;`, a line without `\`).
    static func packages(after marker: String, in text: String, file: String) throws -> Set<String> {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let start = try #require(lines.firstIndex { $0.contains(marker) }, "\(file) has no \(marker) comment")
        let installLine = try #require(
            lines[start...].firstIndex { $0.contains("apt-get install") }, "\(file): no apt-get install after \(marker)")
        var words: [Substring] = []
        var index = installLine
        while index < lines.count {
            let line = lines[index]
            let body = line.hasSuffix("\\") ? line.dropLast() : Substring(line)
            let fromInstall =
                index == installLine ? body[(body.range(of: "apt-get install")?.upperBound ?? body.startIndex)...] : body
            words.append(contentsOf: fromInstall.split(whereSeparator: { $0 == " " || $0 == "\t" }))
            if !line.hasSuffix("\\") || fromInstall.contains("&&") || fromInstall.contains(";") { break }
            index += 1
        }
        let command = words.prefix { $0 != "&&" && !$0.hasSuffix(";") }
        let packages = Set(command.filter { !$0.hasPrefix("-") }.map(String.init))
        #expect(!packages.isEmpty, "\(file): no packages after \(marker)")
        return packages
    }
}
