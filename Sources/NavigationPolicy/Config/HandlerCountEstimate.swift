/// How many handlers a streamed `handlers` array will hold, estimated while it is read, so the
/// compiler can size its handler-name table and link list once instead of letting them double
/// their way up (a 100k-handler config rehashed every name 18 times: ~0.06G instructions).
///
/// Only capacity depends on it: an estimate that is too low means one more growth, one too high
/// means unused capacity, never a different compile.
enum HandlerCountEstimate {
    /// Handlers read before the first estimate: enough to average over, and small configs
    /// (most of them) never pay for one.
    static let firstSample = 64

    /// The capacity to reserve after `read` handlers took `bytesRead` bytes, with `bytesLeft`
    /// bytes of the text still unread.
    ///
    /// The rest of the text is assumed to be handlers of the average size so far (it also holds
    /// whatever follows `handlers`, so this leans high), plus 1/8 for handlers that are smaller
    /// than the sample. It is at least twice `read`, so when the estimate falls short and the
    /// caller asks again at the reserved count, capacity still grows geometrically.
    static func capacity(read: Int, bytesRead: Int, bytesLeft: Int) -> Int {
        guard read > 0 else { return firstSample }
        let bytesPerHandler = max(1, bytesRead / read)
        let expected = read + max(0, bytesLeft) / bytesPerHandler
        return max(expected + expected / 8, 2 * read)
    }
}
