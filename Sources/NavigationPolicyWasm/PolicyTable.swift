import NavigationPolicy

/// The policies and half-loaded bundles JavaScript holds, by handle: a JavaScript object holds
/// a small positive number, never a pointer into the module.
struct HandleTable<Value> {
    private var slots: [Value?] = []
    private var free: [Int] = []

    /// Stores `value`; its handle is 1 or more.
    mutating func insert(_ value: Value) -> Int32 {
        if let index = free.popLast() {
            slots[index] = value
            return Int32(index + 1)
        }
        slots.append(value)
        return Int32(slots.count)
    }

    func value(_ handle: Int32) -> Value? {
        let index = Int(handle) - 1
        guard slots.indices.contains(index) else { return nil }
        return slots[index]
    }

    /// Removes and returns the value; nil for a handle that holds none (released twice).
    mutating func remove(_ handle: Int32) -> Value? {
        let index = Int(handle) - 1
        guard slots.indices.contains(index), let value = slots[index] else { return nil }
        slots[index] = nil
        free.append(index)
        return value
    }
}

/// The module's two tables (one WebAssembly instance runs on one JavaScript thread).
enum Handles {
    nonisolated(unsafe) static var policies = HandleTable<LoadedPolicy>()
    nonisolated(unsafe) static var openedBundles = HandleTable<OpenedBundle>()
}
