import MasonrySheet

/// The command's side of plan files (SPEC §15): which words a plan records, the request of a
/// run that paints from a plan, and `masonry index`, the gather step after a fan-out.
enum PlanCommand {
    /// Options that change how a run works, never its bytes: a page job gives its own.
    static let runOptions: Set<OptionSpec.Key> = [.jobs, .cache, .cacheMaxBytes, .maxMemory, .quiet, .verbose, .progress,
                                                  .noProgress, .strict]
    /// What a plan records: every option given but the plan's own and the run options, each as
    /// `--name=value` (the value's raw bytes) in the option table's order, then `--` and the inputs.
    static func recordedWords(_ parsed: ParsedArguments) -> [[UInt8]] {
        let left: Set<OptionSpec.Key> = runOptions.union([.plan, .planOnly, .fromPlan, .replanChanged, .page])
        var words: [[UInt8]] = []
        for spec in optionTable where !left.contains(spec.key) {
            if spec.value == nil {
                if parsed.flags.contains(spec.key) { words.append(Array("--\(spec.long)".utf8)) }
            } else if let value = parsed.paths[spec.key] {
                words.append(Array("--\(spec.long)=".utf8) + value.bytes)
            }
        }
        return words + [Array("--".utf8)] + parsed.inputs.map(\.bytes)
    }

    /// The request of `masonry --from-plan FILE [--page K] [run options]`: the plan's words parsed
    /// again, with this command's run options, and the plan's images instead of a scan. It
    /// writes pages only (the manifest and HTML page are `masonry index`'s).
    static func pageRequest(_ parsed: ParsedArguments, plan: PlanFile) throws(UsageError) -> (SheetRequest, OutputSettings) {
        try checkPageOptions(parsed)
        var (request, talk) = try recordedRequest(plan, overriding: parsed, keys: runOptions)
        request.page = try parsed.values[.page].map { (text) throws(UsageError) in
            try CommandSettings.parseNumber(text, option: .page, in: 1...Int(Int32.max))
        }
        request.replanChanged = parsed.flags.contains(.replanChanged)
        request.manifest = nil
        request.html = nil
        return (request, talk)
    }

    /// Options `masonry index` takes.
    static let indexTable: [OptionSpec] = optionTable.filter { [.fromPlan, .manifest, .html, .quiet, .help].contains($0.key) }
    static let indexUsage = "masonry index --from-plan <file> [--manifest <path.json>] [--html <path.html>] [-q]"

    /// `masonry index --from-plan FILE`: writes the manifest and HTML page the planning command
    /// named (or those given here), as a one-machine run of it writes them beside its pages,
    /// from the plan alone: no input is read.
    static func index(arguments: [[UInt8]], output: Terminal) -> Int32 {
        let request: SheetRequest
        let quiet: Bool
        do throws(UsageError) {
            let action = try ArgumentParser.parse(arguments, table: indexTable, inputs: "--from-plan <file>")
            guard case .render(let parsed) = action else {
                output.standardOutput("OVERVIEW: Write the manifest and HTML page of a plan's pages (after they were painted "
                    + "one by one with --from-plan).\n\nUSAGE: \(indexUsage)\n\nOPTIONS:\n"
                    + HelpText.optionRows(indexTable).joined(separator: "\n") + "\n")
                return ExitStatus.written.rawValue
            }
            guard let path = parsed.paths[.fromPlan] else { throw UsageError("'masonry index' needs '--from-plan <file>'") }
            guard parsed.inputs.isEmpty else { throw UsageError("'masonry index' takes no inputs: the plan names them") }
            let plan: PlanFile
            do throws(SheetError) { plan = try PlanFile.read(path) } catch {
                output.standardError("masonry: error: \(error.message)\n")
                return ExitStatus.nothingWritten.rawValue
            }
            var (made, _) = try recordedRequest(plan, overriding: parsed, keys: [])
            made.manifest = parsed.paths[.manifest] ?? made.manifest
            made.html = parsed.paths[.html] ?? made.html
            guard made.manifest != nil || made.html != nil else {
                throw UsageError("the plan names no '--manifest' or '--html' to write: give one")
            }
            made.gatherOnly = true
            request = made
            quiet = parsed.flags.contains(.quiet)
        } catch {
            output.standardError(MasonryCommand.usageFailure(error.message, usage: indexUsage, help: "masonry index --help"))
            return ExitStatus.usage.rawValue
        }
        do {
            let report = try SheetPipeline.run(request)
            if !quiet {
                let files = [request.manifest, request.html].compactMap { $0?.displayName }.joined(separator: " and ")
                let pages = report.pageCount == 1 ? "1 page" : "\(report.pageCount) pages"
                output.standardError("masonry: index: wrote \(files) for \(pages): \(report.rendered) images\n")
            }
            return ExitStatus.written.rawValue
        } catch {
            output.standardError("masonry: error: \(error.message)\n")
            return ExitStatus(error).rawValue
        }
    }

    /// A `--from-plan` run takes only the run options, `--page` and `--replan-changed`, and no
    /// inputs: checked before the plan is read.
    static func checkPageOptions(_ parsed: ParsedArguments) throws(UsageError) {
        try refuseOthers(parsed, allowed: runOptions.union([.fromPlan, .page, .replanChanged]), command: "--from-plan")
    }

    /// Any option given outside `allowed` is refused: the plan decides it.
    private static func refuseOthers(_ parsed: ParsedArguments, allowed: Set<OptionSpec.Key>, command: String) throws(UsageError) {
        for spec in optionTable where !allowed.contains(spec.key) {
            if parsed.flags.contains(spec.key) || parsed.values[spec.key] != nil {
                throw UsageError("'--\(spec.long)' cannot be used with '\(command)': the plan decides it")
            }
        }
        guard parsed.inputs.isEmpty else { throw UsageError("'\(command)' takes no inputs: the plan names them") }
    }

    /// The plan's words parsed as the planning command's (without its plan options), this
    /// command's `keys` put in their place, with the plan's images.
    private static func recordedRequest(_ plan: PlanFile, overriding parsed: ParsedArguments,
                                        keys: Set<OptionSpec.Key>) throws(UsageError) -> (SheetRequest, OutputSettings) {
        guard case .render(var recorded) = try ArgumentParser.parse(plan.settings) else {
            throw UsageError("the plan's options ask for help, not a run")
        }
        for key in keys {
            recorded.values[key] = parsed.values[key]
            recorded.paths[key] = parsed.paths[key]
            recorded.spellings[key] = parsed.spellings[key]
            if parsed.flags.contains(key) { recorded.flags.insert(key) } else { recorded.flags.remove(key) }
        }
        var (request, talk) = try CommandSettings.make(from: recorded)
        request.fromPlan = plan
        return (request, talk)
    }
}

extension ExitStatus {
    /// The status of a run that stopped with `error`.
    init(_ error: SheetError) {
        switch error.kind {
        case .failure: self = .nothingWritten
        case .usage: self = .usage
        case .stalePlan: self = .stalePlan
        }
    }
}
