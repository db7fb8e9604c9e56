import Kafka

/// Pausing consumption, for backpressure (through `ReadGate`), the circuit breaker, an operator or
/// a stop.
extension PipelineWorker {
    /// Feeds the gate the items and record bytes held now and performs what it decides.
    func updateBackpressure() {
        performGate(gate.update(held: book.held, bound: book.bound, now: clock.now))
    }

    /// Performs the gate's actions: a hold arms its deadline, a release wakes the reader.
    func performGate(_ actions: [ReadGate.Action]) {
        for action in actions {
            switch action {
            case .holdReads(let deadline):
                holdTimer?.cancel()
                holdTimer = wakes.schedule(at: deadline) { Task { await self.holdExpired() } }
            case .releaseReads:
                holdTimer?.cancel()
                holdTimer = nil
                releaseReader()
            case .pausePartitions:
                logger.info(
                    "\(book.itemsInFlight) items in \(book.bytesInFlight) record bytes held for \(ReadGate.holdLimit): pausing the partitions until half of them are done"
                )
                setPause(.backpressure, true)
            case .resumePartitions:
                setPause(.backpressure, false)
            }
        }
    }

    /// A hold reached its deadline.
    func holdExpired() {
        guard phase != .stopped else { return }
        performGate(gate.holdExpired(now: clock.now))
    }

    /// Returns when the reader may take its next record: at once, unless reads are held. While
    /// the partitions are paused (by an operator, the breaker or the gate) no record comes, so
    /// the reader goes on reading: a rebalance is served at once, not after the hold.
    func readsAllowed() async {
        guard gate.readsHeld, !consumerPaused, phase != .stopped else { return }
        await withCheckedContinuation { heldReader = $0 }
    }

    /// Lets a held reader take its next record.
    func releaseReader() {
        heldReader?.resume()
        heldReader = nil
    }

    /// Pauses or resumes the assigned partitions when the set of reasons to pause becomes
    /// non-empty or empty.
    func setPause(_ reason: PauseReason, _ on: Bool) {
        if on { pauseReasons.insert(reason) } else { pauseReasons.remove(reason) }
        let wanted = !pauseReasons.isEmpty
        guard wanted != consumerPaused else { return }
        consumerPaused = wanted
        if wanted { releaseReader() }
        let partitions = Array(book.assignedPartitions)
        guard !partitions.isEmpty else { return }
        do {
            if wanted { try consumer.pause(partitions) } else { try consumer.resume(partitions) }
            logger.debug("\(wanted ? "paused" : "resumed") \(partitions.count) partitions (\(pauseReasons))")
        } catch {
            logger.warning("\(wanted ? "pausing" : "resuming") partitions failed: \(error)")
        }
    }
}
