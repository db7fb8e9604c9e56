import InstanceAPI

/// The draws the fuzz tests make: a failing case is replayed exactly from the seed it printed.
extension SplitMix64 {
    /// A number in `0..<bound` (`bound` > 0).
    mutating func below(_ bound: Int) -> Int { Int(next(upperBound: UInt64(bound))) }

    /// True with probability `numerator` / `denominator`.
    mutating func chance(_ numerator: Int, in denominator: Int) -> Bool { below(denominator) < numerator }

    /// One of `choices` (not empty).
    mutating func pick<Element>(_ choices: [Element]) -> Element { choices[below(choices.count)] }
}
