extension Duration {
    /// The duration in seconds, as a Double.
    package var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
