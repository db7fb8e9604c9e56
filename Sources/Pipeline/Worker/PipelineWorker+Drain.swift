extension PipelineWorker {
    // MARK: - Waiting for in-flight work

    /// Whether `condition` holds now: nothing in flight at all (while an operator has paused the
    /// pipeline: nothing running or publishing, since waiting work cannot start), or nothing of
    /// `partitions` running or publishing.
    func isDrained(_ condition: DrainWaiters.Condition) -> Bool {
        switch condition {
        case .all: book.isIdle || (dispatch.paused && dispatch.runningCalls == 0 && !book.isPublishing)
        case .partitions(let partitions, let handles): dispatch.runningCalls(carrying: handles) == 0 && book.publishing(in: partitions) == 0
        }
    }

    /// Waits until `condition` holds (true) or `deadline` passes (false), woken by the events
    /// that change it, not by polling.
    func waitForDrain(_ condition: DrainWaiters.Condition, deadline: ContinuousClock.Instant) async -> Bool {
        if isDrained(condition) { return true }
        let id = drains.reserve()
        let expiry = Task {
            try? await Task.sleep(until: deadline, clock: .continuous)
            self.drains.expire(id)
        }
        defer { expiry.cancel() }
        return await withCheckedContinuation { continuation in
            drains.add(id, condition, continuation)
        }
    }

    /// Resumes the drains, and the progress waiters, whose condition now holds: called after
    /// every event that changes the books.
    func resumeWaiters() {
        var drains = self.drains
        drains.resume(where: isDrained)
        self.drains = drains
        if !progress.isEmpty { progress.resume(with: currentStatistics()) }
    }
}
