import Kafka
import Synchronization
import Testing

@Suite("fork turns: broker cuts and spawns never overlap, and waiting for a turn holds no thread")
struct ForkTurnsTests {
    @Test("no two turns' bodies run at once, though each awaits inside its turn")
    func exclusive() async throws {
        let inside = Inside()
        try await withTimeout(120, "30 turns") {
            await withTaskGroup(of: Void.self) { group in
                for _ in 0..<30 {
                    group.addTask {
                        await ForkTurns.shared.taking {
                            inside.state.withLock {
                                $0.now += 1
                                $0.most = max($0.most, $0.now)
                            }
                            for _ in 0..<3 { await Task.yield() }
                            inside.state.withLock {
                                $0.now -= 1
                                $0.done += 1
                            }
                        }
                    }
                }
            }
        }
        let seen = inside.state.withLock { $0 }
        #expect(seen.most == 1)
        #expect(seen.done == 30)
    }

    @Test("64 waiters on a 2-core task pool leave a thread for the task that ends the turn they wait for")
    func waitersHoldNoThread() async throws {
        let (opened, open) = AsyncStream.makeStream(of: Void.self)
        try await withTimeout(120, "a turn ended by a task behind 64 waiters") {
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    await ForkTurns.shared.taking {
                        for await _ in opened { break }
                    }
                }
                await Task.yield()
                for _ in 0..<64 { group.addTask { await ForkTurns.shared.taking {} } }
                group.addTask {
                    for _ in 0..<10 { await Task.yield() }
                    open.yield()
                    open.finish()
                }
            }
        }
    }

    /// Bodies in a turn now, the most seen at once, and those that ended.
    private final class Inside: Sendable {
        let state = Mutex((now: 0, most: 0, done: 0))
    }
}
