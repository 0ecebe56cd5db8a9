/// Whether one `hosts` set accepts every host another accepts, for the unreachable-handler lint.
///
/// Names, wildcards, ranges and classes are compared entry by entry: an inner entry is covered
/// when one outer entry covers it (a range is not recognized as covered by the union of two
/// smaller ones, so the lint can only under-report there, never warn wrongly).
enum HostCover {
    static func covers(_ outer: HostSet, _ inner: HostSet) -> Bool {
        inner.exact.allSatisfy { host in
            outer.contains(host) || outer.contains(HostAddress(matchForm: host))
        }
            && inner.wildcardSuffixes.allSatisfy { suffix in
                outer.wildcardSuffixes.contains(suffix)
                    || MatchHost.anyParentDomain(of: suffix) { outer.wildcardSuffixes.contains($0) }
                    || (outer.coversLocalhostNames && AddressClass.isLocalhostName(suffix))
            }
            && inner.ranges.allSatisfy { range in outer.ranges.contains { covers($0, range) } }
            && (!inner.coversLocalhostNames || outer.coversLocalhostNames)
    }

    /// Whether `outer` holds every address of `inner`.
    static func covers(_ outer: AddressRange, _ inner: AddressRange) -> Bool {
        outer.prefixLength <= inner.prefixLength && outer.contains(inner.base)
    }
}
