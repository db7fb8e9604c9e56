// DELETE THIS FILE WHEN MERGING helper H2's branch (issue 33). Stand-ins, so that the bench
// branch compiles alone, for what H2 adds: `SelfSignedCertificate` (Emulator module) and
// `EmulatorStats.connections`. They fail at run time rather than pretend; with H2's branch
// merged, `connections` becomes ambiguous (a compile error), and this local
// `SelfSignedCertificate` would shadow the Emulator's: delete the file.
import Emulator

#warning("BenchTLSShim.swift: delete at merge with H2's TLS branch")

/// Stand-in for the Emulator module's `SelfSignedCertificate` (helper H2): always throws.
struct SelfSignedCertificate {
    /// Throws: this branch has no TLS.
    init(hosts: [String]) throws {
        throw RuntimeError(.unavailable, "this build has no SelfSignedCertificate yet (BenchTLSShim.swift stands in for helper H2's TLS work)")
    }

    /// Never written: `init` throws.
    func write(certificate: String, key: String) throws {}
}

extension EmulatorStats {
    /// Stand-in for H2's `connections`: always 0.
    var connections: Int { 0 }
}
