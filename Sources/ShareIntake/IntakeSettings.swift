public import PolicySections

/// The `intake` section, decoded by its pure rule in PolicySections (which a core-only build
/// validates with too); the store reads it from here.
public typealias IntakeSettings = PolicySections.IntakeSettings
