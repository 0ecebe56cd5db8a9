/// A whole number a config may set past 2^31 (a byte budget of a terabyte, a version): `Int`
/// where `Int` has 64 bits, so the daemon's settings keep their type, and `Int64` in the
/// WebAssembly build, whose wasm32 `Int` has 32 (issue 43), so it validates the same numbers
/// as the daemon (``ConfigObject/integer(_:in:diagnostics:)``). The rule of ``BundleNumber``,
/// for the config's own sections.
#if _pointerBitWidth(_64)
    public typealias ConfigInteger = Int
#else
    public typealias ConfigInteger = Int64
#endif
