import Foundation
import WireJSON

extension JSONValue {
    /// Where this value differs from what Foundation's `JSONSerialization` read from the same
    /// document, as a path and both sides; nil when they are the same value. Strings and names
    /// compare by their UTF-8 bytes (Swift's `==` would equate canonically equivalent text).
    /// Numbers: `JSONSerialization` gives an `NSNumber` read as Int64, UInt64 or Double, whose
    /// double must be ours exactly, or an `NSDecimalNumber` for what those cannot hold (more than
    /// 19 digits, or many fraction digits), whose `doubleValue` Foundation computes a few ulps
    /// off (0.30000000000000004 gives 0.3000000000000001): within a relative 1e-12 of ours. Its
    /// `-0` is the integer 0, equal to our -0.0 as doubles.
    func difference(from foundation: Any, at path: String = "$") -> String? {
        switch self {
        case .null:
            return foundation is NSNull ? nil : "\(path): null vs \(foundation)"
        case .bool(let flag):
            guard let number = foundation as? NSNumber, Self.isBoolean(number), number.boolValue == flag else {
                return "\(path): \(flag) vs \(foundation)"
            }
            return nil
        case .number(let value):
            guard let number = foundation as? NSNumber, !Self.isBoolean(number) else { return "\(path): \(value) vs \(foundation)" }
            if number is NSDecimalNumber {
                let theirs = number.doubleValue
                return abs(theirs - value) <= abs(value) * 1e-12 ? nil : "\(path): \(value) vs decimal \(number) (\(theirs))"
            }
            return number.doubleValue == value ? nil : "\(path): \(value) vs \(number) (\(number.doubleValue))"
        case .string(let text):
            guard let theirs = foundation as? String else { return "\(path): \"\(text)\" vs \(foundation)" }
            return Array(text.utf8) == Array(theirs.utf8) ? nil : "\(path): \(Array(text.utf8)) vs \(Array(theirs.utf8))"
        case .array(let elements):
            guard let theirs = foundation as? [Any] else { return "\(path): an array vs \(foundation)" }
            guard elements.count == theirs.count else { return "\(path): \(elements.count) elements vs \(theirs.count)" }
            for (index, element) in elements.enumerated() {
                if let difference = element.difference(from: theirs[index], at: "\(path)[\(index)]") { return difference }
            }
            return nil
        case .object(let members):
            guard let theirs = foundation as? [String: Any] else { return "\(path): an object vs \(foundation)" }
            guard members.count == theirs.count else { return "\(path): \(members.count) members vs \(theirs.count)" }
            let byBytes = Dictionary(theirs.map { (Array($0.key.utf8), $0.value) }, uniquingKeysWith: { first, _ in first })
            for (name, member) in members {
                guard let their = byBytes[Array(name.utf8)] else { return "\(path): member \(Array(name.utf8)) missing in Foundation's" }
                if let difference = member.difference(from: their, at: "\(path).\(name)") { return difference }
            }
            return nil
        }
    }

    /// Whether Foundation's number is one of its booleans (`objCType` "c"; JSON has no chars).
    private static func isBoolean(_ number: NSNumber) -> Bool {
        String(cString: number.objCType) == "c"
    }
}
