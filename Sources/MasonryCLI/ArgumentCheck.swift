extension MasonryCommand {
    /// Parses `arguments` as `run` does (a render's, or after `compare`, a comparison's) up to
    /// the request, without reading an input or writing anything: the usage error `run` would
    /// print, or nil when they are valid. The fuzz target `arguments` calls it.
    package static func usageError(in arguments: [[UInt8]]) -> String? {
        do throws(UsageError) {
            if arguments.first == Array("compare".utf8) {
                let action = try ArgumentParser.parse(Array(arguments.dropFirst()), table: compareOptionTable,
                                                      inputs: CompareCommand.inputNames)
                if case .render(let parsed) = action { _ = try CompareCommand.settings(parsed) }
            } else if case .render(let parsed) = try ArgumentParser.parse(arguments) {
                _ = try CommandSettings.make(from: parsed)
            }
            return nil
        } catch {
            return error.message
        }
    }
}
