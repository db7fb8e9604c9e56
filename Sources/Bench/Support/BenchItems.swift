import Foundation
import InstanceAPI

/// Real-size items for benchmarks, the sizes Google's are: FCM registration tokens of 163
/// characters (an installation id, `:APA91b`, then base64url), Firebase installation ids (FIDs)
/// of 22 base64url characters starting with c, d, e or f, and APNs device tokens of 64 hex
/// digits. Item `index` is the same on every run (no randomness but a fixed mix of the index)
/// and differs from every other index's: the first 64 bits drawn are a bijection of the index.
enum BenchItems {
    /// Characters in an FCM registration token.
    static let registrationTokenLength = 163
    /// Characters in a Firebase installation id.
    static let installationIDLength = 22
    /// Hex digits in an APNs device token.
    static let apnsTokenLength = 64
    /// What follows the installation id in a registration token.
    static let registrationTokenInfix = ":APA91b"

    /// FCM registration token number `index`: the FID of `index`, `:APA91b`, then base64url to
    /// 163 characters.
    static func registrationToken(_ index: Int) -> String {
        var bits = Bits(index)
        _ = bits.bytes(24)  // past the installation id's bytes, so that the tail does not repeat them
        let fid = installationID(index)
        let rest = registrationTokenLength - fid.count - registrationTokenInfix.count
        return fid + registrationTokenInfix + String(base64url(bits.bytes(rest * 3 / 4 + 3)).prefix(rest))
    }

    /// Firebase installation id number `index`: 17 bytes whose first four bits are 0111, in
    /// base64url, cut to 22 characters, as the Firebase SDKs make them.
    static func installationID(_ index: Int) -> String {
        var bits = Bits(index)
        var bytes = [UInt8(0x70)] + bits.bytes(16)
        bytes[0] |= bytes[16] & 0x0F
        return String(base64url(bytes).prefix(installationIDLength))
    }

    /// APNs device token number `index`: 32 bytes in lowercase hex.
    static func apnsToken(_ index: Int) -> String {
        var bits = Bits(index)
        return NumberText.hex(bits.bytes(apnsTokenLength / 2))
    }

    /// `count` items made by `make`, indices 0 up.
    static func pool(_ count: Int, _ make: (Int) -> String) -> [String] {
        (0..<count).map(make)
    }

    private static func base64url(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// SplitMix64 seeded by the index: its first word is a bijection of the seed.
    private struct Bits {
        var random: SplitMix64

        init(_ index: Int) { random = SplitMix64(seed: UInt64(bitPattern: Int64(index))) }

        mutating func next() -> UInt64 { random.next() }

        /// `count` bytes, the first word's big-endian bytes first.
        mutating func bytes(_ count: Int) -> [UInt8] {
            var bytes: [UInt8] = []
            bytes.reserveCapacity(count + 8)
            while bytes.count < count {
                let word = next()
                for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: word >> UInt64(shift))) }
            }
            return Array(bytes.prefix(count))
        }
    }
}
