import Foundation
import InstanceAPI
import WireJSON

/// One item's final result and when it became final: the per-installation line of a GDPR
/// erasure receipt (`installations.delete` outcomes list one per item, in request order).
public struct ItemReceipt: Sendable, Hashable, Codable {
    /// The installation id (FID or instance id).
    public var item: String
    /// Its final code: `OK` or `ALREADY_ABSENT` mean the installation is gone.
    public var code: ResultCode
    /// When the worker learned that final code.
    public var at: Date

    /// A receipt line.
    public init(item: String, code: ResultCode, at: Date) {
        self.item = item
        self.code = code
        self.at = at
    }

    /// The wire names, every one written by `write(to:)` too (a test holds the two together).
    enum CodingKeys: String, CodingKey, CaseIterable {
        case item, code, at
    }

    /// Writes the line as an object of an outcome's `receipt`: members in `.sortedKeys` order.
    func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key(CodingKeys.at)
        writer.plainString(WireDate.bytes(at))
        writer.member(CodingKeys.code, code.rawValue)
        writer.member(CodingKeys.item, item)
        writer.endObject()
    }
}
