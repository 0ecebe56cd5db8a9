import ConnectionSharing
import Foundation
import Glibc
import HTTPTypes
import NetworkSockets
import Synchronization

/// A unary gRPC server over cleartext HTTP/2 (h2c with prior knowledge, as Envoy's
/// `envoy_grpc` and `google_grpc` clients speak it): the HTTP/2 transport (``H2Connection``
/// on libnghttp2, which knows nothing of gRPC) hands each request to ``GRPCUnaryService``.
///
/// Threads: one accept thread, and one thread per connection up to
/// ``GRPCServerConfiguration/connectionLimit``. gRPC clients keep a few long-lived connections
/// and multiplex their calls on them (Envoy opens one per worker thread), so a thread per
/// connection costs a handful of threads; its streams are answered in order on that thread,
/// each in microseconds, and a blocking loop per connection keeps the C glue to one
/// `mem_recv`/`mem_send` pair with no event loop to share between threads.
public final class GRPCServer: Sendable {
    private let configuration: GRPCServerConfiguration
    private let service: GRPCUnaryService
    /// The transport's bounds, from ``configuration``.
    private let transport: H2Settings
    private let observer: GRPCServerObserver
    private let state: Mutex<State>
    /// A pipe whose read end every connection thread polls beside its socket: one byte written
    /// by ``shutdown(until:)`` and never read, so it stays readable for all of them.
    private let drainSignal: (read: Int32, write: Int32)

    private struct State {
        var listenSocket: Int32 = -1
        var boundPort: UInt16?
        var accepting = false
        /// Open connections: their sockets (to cut them at the drain deadline), per-peer counts
        /// and each network's share (the HTTP listeners' rule).
        var sockets: Set<Int32> = []
        var perAddress: [String: Int] = [:]
        var subnets: SubnetAdmission
        var acceptThreadDone = true
    }

    /// A server for `methods` (keyed by `:path`, e.g. `/envoy.service.auth.v3.Authorization/Check`);
    /// nothing binds until ``start()``.
    public init(configuration: GRPCServerConfiguration, methods: [String: GRPCMethod], observer: GRPCServerObserver) {
        self.configuration = configuration
        self.observer = observer
        let service = GRPCUnaryService(
            methods: methods, maxMessageBytes: configuration.maxMessageBytes, observer: observer)
        self.service = service
        self.transport = H2Settings(
            maxConcurrentStreams: configuration.maxConcurrentStreams, maxHeaderListBytes: configuration.maxHeaderListBytes,
            maxBodyBytes: service.maxBodyBytes, maxBufferedBytesPerConnection: configuration.maxBufferedBytesPerConnection,
            idleTimeoutSeconds: configuration.idleTimeoutSeconds, requestTimeoutSeconds: configuration.requestTimeoutSeconds,
            maxTimedOutStreamsPerConnection: configuration.maxTimedOutStreamsPerConnection,
            notHTTP2Body: "this port serves gRPC over HTTP/2 (h2c with prior knowledge), not HTTP/1.x\n")
        self.state = Mutex(
            State(
                subnets: SubnetAdmission(
                    limit: configuration.perSubnetConnectionLimit, totalLimit: configuration.connectionLimit)))
        var ends: [Int32] = [-1, -1]
        if pipe(&ends) == 0 {
            for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        }
        self.drainSignal = (ends[0], ends[1])
    }

    deinit {
        if drainSignal.read >= 0 {
            close(drainSignal.read)
            close(drainSignal.write)
        }
    }

    /// The port it listens on, once started.
    public var boundPort: UInt16? { state.withLock { $0.boundPort } }

    /// Connections open now.
    public var openConnections: Int { state.withLock { $0.sockets.count } }

    /// Binds (or takes the inherited socket), listens, and starts accepting; returns the bound port.
    public func start() throws(GRPCServerError) -> UInt16 {
        guard drainSignal.read >= 0 else { throw GRPCServerError("pipe: could not create the drain signal") }
        let listen = try openListenSocket()
        let socket = listen.descriptor
        let port = listen.port
        state.withLock {
            $0.listenSocket = socket
            $0.boundPort = port
            $0.accepting = true
            $0.acceptThreadDone = false
        }
        let thread = Thread { [self] in acceptLoop(socket) }
        thread.name = "grpc-accept"
        thread.start()
        return port
    }

    private func acceptLoop(_ listenSocket: Int32) {
        defer {
            close(listenSocket)
            state.withLock { $0.acceptThreadDone = true }
        }
        while state.withLock({ $0.accepting }) {
            let socket: Int32
            let address: IPAddress?
            switch ListenSocket.accept(on: listenSocket) {
            case .retry: continue
            case .outOfDescriptors:
                usleep(10_000)  // out of descriptors: let connections close instead of spinning
                continue
            case .closed: return  // the listening socket was shut down (stopAccepting)
            case .connection(let accepted, let peer):
                socket = accepted
                address = peer
            }
            // The per-address limit's key and the per-network share's (IPv4 /24, IPv6 /64; an
            // IPv4-mapped IPv6 peer is its IPv4 /24); a peer with neither family has no share.
            let peer = address?.text ?? "unknown"
            let subnet = address.flatMap { ClientSubnet(family: $0.version, bytes: $0.bytes) }
            if let refusal = admit(socket, peer: peer, subnet: subnet) {
                var fields = ["peer": peer, "reason": refusal.rawValue]
                if let subnet { fields["network"] = subnet.description }
                observer.event("grpc.connection_refused", fields)
                close(socket)
                continue
            }
            StreamSocket.setNoDelay(socket)
            let thread = Thread { [self] in
                H2Connection(
                    socket: socket, settings: transport, handler: { [service] in service.respond(to: $0, overflow: $1) },
                    drainSignal: drainSignal.read, remoteAddress: peer,
                    event: { [observer] in observer.event("grpc." + $0, $1) }
                ).run()
                release(socket, peer: peer, subnet: subnet)
            }
            thread.name = "grpc-connection"
            thread.stackSize = 1 << 20
            thread.start()
        }
    }

    /// The socket to serve: the inherited one, checked (and made blocking: the accept thread
    /// waits in `accept(2)`), or a new one bound to the configured address.
    private func openListenSocket() throws(GRPCServerError) -> ListenSocket {
        let opened: Result<ListenSocket, SocketError>
        if let inherited = configuration.inheritedListenSocket {
            opened = ListenSocket.adopt(inherited, nonBlocking: false)
        } else {
            guard let address = IPAddress(literal: configuration.host) else {
                throw GRPCServerError("\(configuration.host): not an IPv4 or IPv6 address", kind: .invalidAddress)
            }
            opened = ListenSocket.open(address: address, port: configuration.port, backlog: 1024, nonBlocking: false)
        }
        switch opened {
        case .success(let socket): return socket
        case .failure(let error):
            let what =
                configuration.inheritedListenSocket.map { "inherited descriptor \($0)" }
                ?? "bind \(configuration.host):\(configuration.port)"
            throw GRPCServerError("\(what): \(error.reason)", kind: GRPCServerError.Kind(error.kind))
        }
    }

    /// Why a connection was closed at accept: the limit it met.
    private enum Refusal: String {
        case connectionLimit = "connection_limit"
        case addressLimit = "address_limit"
        /// Its network holds its share, or only the slots kept for small networks are left.
        case networkLimit = "network_limit"
    }

    /// Counts the connection in, or says which limit refuses it (nothing counted). A peer with
    /// no IPv4 or IPv6 address (none on a TCP listener) has no network share to check.
    private func admit(_ socket: Int32, peer: String, subnet: ClientSubnet?) -> Refusal? {
        state.withLock { state in
            guard state.sockets.count < configuration.connectionLimit else { return .connectionLimit }
            guard state.perAddress[peer, default: 0] < configuration.perAddressConnectionLimit else { return .addressLimit }
            if let subnet, !state.subnets.admit(subnet) { return .networkLimit }
            state.sockets.insert(socket)
            state.perAddress[peer, default: 0] += 1
            return nil
        }
    }

    private func release(_ socket: Int32, peer: String, subnet: ClientSubnet?) {
        state.withLock { state in
            state.sockets.remove(socket)
            if let subnet { state.subnets.release(subnet) }
            let left = state.perAddress[peer, default: 1] - 1
            state.perAddress[peer] = left > 0 ? left : nil
            // Closed under the lock, so ``shutdown(until:)`` never cuts a descriptor number that
            // was closed and reused.
            close(socket)
        }
    }

    /// Stops accepting: new connections are refused at once; open ones go on.
    public func stopAccepting() {
        state.withLock { state in
            guard state.accepting else { return }
            state.accepting = false
            // Wakes the accept thread, which closes the socket.
            _ = Glibc.shutdown(state.listenSocket, Int32(SHUT_RDWR))
        }
    }

    /// Drains: every connection gets GOAWAY, the calls in flight are answered, and connections
    /// still open at `deadline` are cut. Returns when every connection thread has ended.
    public func shutdown(until deadline: ContinuousClock.Instant) {
        stopAccepting()
        var one: UInt8 = 1
        _ = write(drainSignal.write, &one, 1)
        while ContinuousClock.now < deadline && !state.withLock({ $0.sockets.isEmpty && $0.acceptThreadDone }) {
            usleep(5_000)
        }
        state.withLock { state in
            for socket in state.sockets { _ = Glibc.shutdown(socket, Int32(SHUT_RDWR)) }
        }
        // The cut connections' threads see their sockets fail and end at once.
        let hardStop = ContinuousClock.now.advanced(by: .seconds(2))
        while ContinuousClock.now < hardStop && !state.withLock({ $0.sockets.isEmpty && $0.acceptThreadDone }) {
            usleep(5_000)
        }
    }
}

/// Why a ``GRPCServer`` could not start.
public struct GRPCServerError: Error, CustomStringConvertible, Sendable {
    /// The kinds of failure, for a caller that acts on one (the daemon only reports them).
    public enum Kind: Sendable {
        case invalidAddress, addressInUse, addressNotAvailable, permissionDenied, socketFailure
    }

    /// Which kind of failure.
    public let kind: Kind
    /// What failed, with the system's reason.
    public let description: String

    init(_ description: String, kind: Kind = .socketFailure) {
        self.kind = kind
        self.description = description
    }
}

extension GRPCServerError.Kind {
    /// The kind a socket-layer failure is.
    init(_ kind: SocketError.Kind) {
        switch kind {
        case .addressInUse: self = .addressInUse
        case .addressNotAvailable: self = .addressNotAvailable
        case .permissionDenied: self = .permissionDenied
        case .notAListeningSocket, .systemError: self = .socketFailure
        }
    }
}
