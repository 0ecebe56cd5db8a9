import CMHDShim
import CMicroHTTPD

/// The C resources of a started daemon, owned by ``HTTPServer`` until shutdown frees them.
///
/// `@unchecked Sendable` because `OpaquePointer` is not Sendable; the daemon handle itself is
/// thread-safe for the calls made on it (info queries, quiesce, stop), and stop/free happen
/// exactly once, after the handle has been removed from the server's lifecycle state.
struct RunningDaemon: @unchecked Sendable {
    let daemon: OpaquePointer
    let listenSocket: Int32
    /// False for a socket passed in by socket activation: its listening state is shared
    /// with the process that passed it, so shutdown must leave it listening.
    let ownsListenSocket: Bool
    let port: UInt16
    /// Where cmhd_format_log sends lines; must outlive the daemon.
    let logTarget: UnsafeMutablePointer<cmhd_log_target>
    /// The daemon's strong reference to the callback context.
    let core: Unmanaged<ServerCore>

    /// Frees what the daemon used; call only after `MHD_stop_daemon` returned.
    func releaseResources() {
        logTarget.deinitialize(count: 1)
        logTarget.deallocate()
        core.release()
    }
}
