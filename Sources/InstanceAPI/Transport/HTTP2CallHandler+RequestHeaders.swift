import NIOHPACK
import NIOHTTP1

extension HTTP2CallHandler {
    /// The request's header block: the pseudo-header fields from `head`, then its fields with
    /// lower-case names, without `Host` (it is `:authority`) and those HTTP/2 forbids.
    ///
    /// `:path` is sent without indexing: most calls name their item in it (a registration, an
    /// installation), so indexed it would take a new entry of HPACK's 4 KiB table on every call
    /// and push out the fields every call repeats (the 200-odd bytes of `authorization` among
    /// them), which then went out in full, Huffman-coded anew, call after call.
    static func requestHeaders(_ head: HTTPRequestHead, scheme: String) -> HPACKHeaders {
        var fields = HPACKHeaders()
        fields.reserveCapacity(head.headers.count + 4)
        fields.add(name: ":method", value: head.method.rawValue)
        fields.add(name: ":scheme", value: scheme)
        fields.add(name: ":path", value: head.uri, indexing: .nonIndexable)
        fields.add(name: ":authority", value: head.headers.first(name: "host") ?? "")
        for (name, value) in head.headers {
            let lower = name.utf8.contains { (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) } ? name.lowercased() : name
            switch lower {
            case "host", "connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade": continue
            default: fields.add(name: lower, value: value)
            }
        }
        return fields
    }
}
