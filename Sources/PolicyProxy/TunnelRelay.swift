import CTunnel
import Glibc

/// Moves a tunnel's bytes both ways until both sides have finished, with `splice(2)` through
/// one pipe per direction: the bytes go socket → pipe → socket inside the kernel and are never
/// copied to user space (the proxy never reads what it relays: it cannot, it is TLS).
///
/// One thread per tunnel runs ``run()``, blocked in `poll(2)` on the two sockets; a half-close
/// is passed on (`shutdown(SHUT_WR)` on the other side), so protocols that end with one side
/// closing first still finish. A tunnel silent both ways for the idle timeout is closed.
public final class TunnelRelay: @unchecked Sendable {
    // @unchecked: everything below is touched only by the thread running `run()`, except
    // the byte counters, read by that thread's caller once `run()` returned.

    /// How a relay ended.
    public enum Ending: String, Sendable {
        /// Both sides finished sending.
        case closed
        /// One side reset the connection (or closed it while the other still sent): a common
        /// end of TLS connections, not a fault of the relay.
        case reset
        /// Neither side sent anything for the idle timeout.
        case idleTimeout = "idle-timeout"
        /// A socket or pipe failed (reset, `EPIPE`), or the pipes could not be made.
        case error
    }

    private struct Direction {
        let from: Int32
        let to: Int32
        var pipe: (read: Int32, write: Int32) = (-1, -1)
        /// What the pipe holds at most (what the kernel granted).
        var capacity = 0
        /// Bytes in the pipe not yet written out.
        var pending = 0
        var sourceEnded = false
        /// Whether the end was passed on (`shutdown(SHUT_WR)` on `to`).
        var shutDown = false
        var bytes = 0
        var isDone: Bool { sourceEnded && pending == 0 }
    }

    /// The pipe size asked for: 1 MiB means fewer splice calls per MB (the kernel keeps its
    /// default 64 KiB past `/proc/sys/fs/pipe-max-size`; the relay uses what it granted).
    static let pipeCapacity = 1 << 20

    private var directions: [Direction]
    private let idleTimeoutMilliseconds: Int32
    /// The errno that ended the relay, when a splice failed.
    private var failure: Int32 = 0
    /// Bytes moved client → origin and origin → client.
    public private(set) var bytesFromClient = 0
    public private(set) var bytesFromOrigin = 0

    /// A relay between the two connected sockets (non-blocking). It closes neither.
    public init(client: Int32, origin: Int32, idleTimeoutMilliseconds: Int) {
        directions = [Direction(from: client, to: origin), Direction(from: origin, to: client)]
        self.idleTimeoutMilliseconds = Int32(clamping: idleTimeoutMilliseconds)
    }

    /// Relays until the end; blocks the calling thread.
    public func run() -> Ending {
        defer {
            for direction in directions {
                if direction.pipe.read >= 0 { close(direction.pipe.read) }
                if direction.pipe.write >= 0 { close(direction.pipe.write) }
            }
            bytesFromClient = directions[0].bytes
            bytesFromOrigin = directions[1].bytes
        }
        for index in directions.indices {
            var fds: [Int32] = [-1, -1]
            let capacity = ctunnel_pipe(&fds, Int32(Self.pipeCapacity))
            guard capacity > 0 else { return .error }
            directions[index].pipe = (fds[0], fds[1])
            directions[index].capacity = Int(capacity)
        }
        var polled = [pollfd](repeating: pollfd(), count: 2)
        while !directions.allSatisfy(\.isDone) {
            // One entry per socket: readable when its direction needs input, writable when the
            // other direction has bytes waiting for it.
            for (slot, socket) in [directions[0].from, directions[1].from].enumerated() {
                var events: Int16 = 0
                let outgoing = directions[slot]
                let incoming = directions[1 - slot]
                if !outgoing.sourceEnded && outgoing.pending < outgoing.capacity { events |= Int16(POLLIN) }
                if incoming.pending > 0 { events |= Int16(POLLOUT) }
                polled[slot] = pollfd(fd: socket, events: events, revents: 0)
            }
            let ready = poll(&polled, 2, idleTimeoutMilliseconds)
            if ready < 0 {
                if errno == EINTR { continue }
                return .error
            }
            if ready == 0 { return .idleTimeout }
            for entry in polled {
                // A reset socket would report POLLERR/POLLHUP on every call, even unasked:
                // end here instead of spinning until the other side sends something.
                if entry.revents & Int16(POLLNVAL) != 0 { return .error }
                if entry.revents & Int16(POLLERR) != 0 { return .reset }
                if entry.revents & Int16(POLLHUP) != 0 && entry.events == 0 { return .closed }
            }
            for index in directions.indices {
                guard move(&directions[index]) else {
                    return failure == ECONNRESET || failure == EPIPE ? .reset : .error
                }
            }
        }
        return .closed
    }

    /// Moves what can move now in one direction; false when a socket failed. Reading goes on
    /// while the pipe has room and writing while it holds bytes, so the two sockets work at
    /// once instead of taking turns (a whole chunk read, then a whole chunk written).
    private func move(_ direction: inout Direction) -> Bool {
        var progressed = true
        while progressed {
            progressed = false
            if !direction.sourceEnded && direction.pending < direction.capacity {
                let read = ctunnel_splice(direction.from, direction.pipe.write, direction.capacity - direction.pending)
                if read > 0 {
                    direction.pending += read
                    progressed = true
                } else if read == 0 {
                    direction.sourceEnded = true
                } else if errno != EAGAIN {
                    // A reset by either side ends the whole tunnel.
                    failure = errno
                    return false
                }
            }
            if direction.pending > 0 {
                let written = ctunnel_splice(direction.pipe.read, direction.to, direction.pending)
                if written > 0 {
                    direction.pending -= written
                    direction.bytes += written
                    progressed = true
                } else if written < 0 && errno != EAGAIN {
                    failure = errno
                    return false
                }
            }
        }
        if direction.isDone && !direction.shutDown {
            // Passed on once everything before the end was written: the other side reads EOF.
            _ = shutdown(direction.to, Int32(SHUT_WR))
            direction.shutDown = true
        }
        return true
    }
}
