import CodecCore
import WorkerThreads
#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// Before a page is painted from a plan file, each of its inputs is checked against what the
/// plan recorded (SPEC §15): still a regular file, the same size, modification time and inode
/// (one `stat`), and a header that gives the same format, shown size, orientation, frame count
/// and colour space. The header read here replaces the plan's record of it, so the decoder
/// checks against it as in a one-machine run.
enum PlanCheck {
    /// Checks the inputs of `pages` and puts their headers into `plan`. A changed input throws
    /// (`SheetError.Kind.stalePlan`, naming the file and what changed) unless `replanChanged`:
    /// then it is read as it is now and drawn in its planned tile when it still has its planned
    /// shown size, with a warning; otherwise its tile is left as background and it is skipped
    /// (the painter says why). Returns the checked files, for `OutputSafety`.
    static func verify(pages: [PagePlan], of plan: inout SheetPlan, limits: DecodeLimits, opener: InputOpener,
                       replanChanged: Bool, jobs: Int, events: @Sendable (SheetEvent) -> Void) throws(SheetError) -> [InputCandidate] {
        let indices = pages.flatMap { $0.tiles.compactMap(\.index) }
        let planned = indices.map { plan.images[$0] }
        let checked = parallelMap(count: planned.count, jobs: jobs) { position in check(planned[position], limits: limits, opener: opener) }
        try opener.checkRun()
        var candidates: [InputCandidate] = []
        for (index, (image, result)) in zip(indices, zip(planned, checked)) {
            switch result {
            case .unchanged(let fresh, let status):
                plan.images[index] = fresh
                candidates.append(InputCandidate(status, path: image.path))
            case .changed(let reason, let fresh, let status):
                guard replanChanged else {
                    throw SheetError(.stalePlan, "\(image.path.displayName) changed since it was planned (\(reason)): "
                                     + "plan again, or use --replan-changed")
                }
                if let fresh {
                    plan.images[index] = fresh
                    events(.warning(SkippedInput(path: image.path, reason: "changed since it was planned (\(reason)); drawn as it is now")))
                }
                if let status { candidates.append(InputCandidate(status, path: image.path)) }
            }
        }
        return candidates
    }

    private enum Outcome: Sendable {
        case unchanged(PlannedImage, stat)
        /// What changed, and the image as it is now when it still fits its planned tile.
        case changed(String, PlannedImage?, stat?)
    }

    private static func check(_ image: PlannedImage, limits: DecodeLimits, opener: InputOpener) -> Outcome {
        guard let status = image.path.status() else {
            return .changed(errno == ENOENT ? "it no longer exists" : String(cString: strerror(errno)), nil, nil)
        }
        guard status.st_mode & S_IFMT == S_IFREG else { return .changed("it is no longer a regular file", nil, status) }
        let now = FileStamp(status)
        var differences: [String] = []
        if now.byteSize != image.stamp.byteSize { differences.append("size \(image.stamp.byteSize) → \(now.byteSize) bytes") }
        if now.modificationTime != image.stamp.modificationTime { differences.append("modification time") }
        if now.inode != image.stamp.inode { differences.append("inode \(image.stamp.inode) → \(now.inode): replaced") }
        let header: (ImageFormat, SourceHeader)
        switch ImageFormats.header(of: image.path, limits: limits, opener: opener).result {
        case .success(let read): header = read
        case .failure(let error): return .changed((differences + [error.reason]).joined(separator: ", "), nil, status)
        }
        let fresh = PlannedImage(path: image.path, format: header.0, source: header.1, orientation: header.1.orientation, stamp: now)
        if fresh.format != image.format { differences.append("format \(image.format.name) → \(fresh.format.name)") }
        if (fresh.width, fresh.height) != (image.width, image.height) {
            differences.append("size \(image.width)x\(image.height) → \(fresh.width)x\(fresh.height) px")
        }
        if fresh.orientation != image.orientation || fresh.source.frameCount != image.source.frameCount
            || fresh.colorName != image.colorName {
            differences.append("header")
        }
        guard !differences.isEmpty else { return .unchanged(fresh, status) }
        let fits = (fresh.width, fresh.height) == (image.width, image.height)
        return .changed(differences.joined(separator: ", "), fits ? fresh : nil, status)
    }
}

extension InputCandidate {
    /// A file as a `stat` of it saw it.
    init(_ status: stat, path: RawPath) {
        self.init(path: path, scannedStamp: FileStamp(status), identity: FileIdentity(status))
    }
}
