import Foundation
@testable import MasonryCLI
import Testing
import TestSupport

/// The man page and the completion scripts that `make install` installs (issue #26), made by
/// the built `masonry --generate-manual` / `--generate-completion <shell>`: every option that
/// `--help` lists (a render's and `masonry compare`'s) is in each of them, `man -l` renders the
/// page, and the completions work in the shells themselves (bash always; zsh and fish when
/// installed, which `make test` does, else only their text is checked).
@Suite struct ManualAndCompletionTests {
    /// The long option names `--help` lists, read from its OPTIONS section as a user sees it.
    static func helpOptions(_ arguments: [String]) throws -> [String] {
        let help = try MasonryExecutable.run(arguments).standardOutput
        let section = help.components(separatedBy: "\nOPTIONS:\n")[1].components(separatedBy: "\n\n")[0]
        return section.split(separator: "\n").filter { $0.hasPrefix("  -") }.compactMap { line in
            let words = line.split(separator: " ")
            // `--update-baseline[=<mode>]`: the option is the part before its optional value.
            return words.first { $0.hasPrefix("--") }.map { String($0.prefix { $0 != "[" }) }
        }
    }

    static func generated(_ arguments: [String]) throws -> String {
        let result = try MasonryExecutable.run(arguments)
        #expect(result.status == 0 && result.standardError.isEmpty, "\(arguments): \(result.standardError)")
        return result.standardOutput
    }

    /// Runs `shell` on `script` (written to a file of its own) in `folder`, after writing `files` there.
    static func runShell(_ shell: String, _ script: String, in folder: String, files: [String: String] = [:]) throws -> ProcessResult {
        for (name, text) in files { try Data(text.utf8).write(to: URL(fileURLWithPath: folder + "/" + name)) }
        let scriptFolder = TemporaryFolder("masonry-shell")
        let scriptPath = scriptFolder.file("check.\(shell)")
        try Data(script.utf8).write(to: URL(fileURLWithPath: scriptPath))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [shell, scriptPath]
        process.currentDirectoryURL = URL(fileURLWithPath: folder)
        let output = Pipe(), error = Pipe()
        process.standardOutput = output
        process.standardError = error
        try process.run()
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        let errorData = error.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return ProcessResult(status: process.terminationStatus, standardOutput: String(decoding: outputData, as: UTF8.self),
                             standardError: String(decoding: errorData, as: UTF8.self))
    }

    static func installed(_ program: String) -> Bool {
        ["/usr/bin", "/bin", "/usr/local/bin"].contains { FileManager.default.isExecutableFile(atPath: "\($0)/\(program)") }
    }

    /// A folder with two images and a sub-folder, for file and folder completion.
    static func filesFolder() throws -> TemporaryFolder {
        let folder = TemporaryFolder("masonry-completion")
        for name in ["a1.png", "a2.jpg"] { try Data().write(to: URL(fileURLWithPath: folder.file(name))) }
        try FileManager.default.createDirectory(atPath: folder.file("adir"), withIntermediateDirectories: false)
        return folder
    }

    /// The options with enumerated values, per command, as the tables declare them.
    static let enumerated: [(command: [String], option: OptionSpec)] =
        optionTable.filter { !$0.choices.isEmpty }.map { ([], $0) }
        + compareOptionTable.filter { !$0.choices.isEmpty }.map { (["compare"], $0) }
    /// Those whose value must follow them (`--order shortest`), and those whose value is
    /// optional and follows an `=` only (`--update-baseline=all`).
    static let required = enumerated.filter { $0.option.bareValue == nil }
    static let optional = enumerated.filter { $0.option.bareValue != nil }

    @Test func theHelpListsTheTablesOptions() throws {
        let render = try Self.helpOptions(["--help"])
        let compare = try Self.helpOptions(["compare", "--help"])
        #expect(render == optionTable.map { "--\($0.long)" })
        #expect(compare == compareOptionTable.map { "--\($0.long)" })
        #expect(Self.enumerated.map(\.option.long).starts(with: ["order", "font-size", "enlarge", "sort", "compression"]))
    }

    @Test func theManualHasEveryOptionAndManRendersIt() throws {
        let source = try Self.generated(["--generate-manual"])
        let options = try Self.helpOptions(["--help"]) + Self.helpOptions(["compare", "--help"])
        for option in options {
            #expect(source.contains(#"\fB"# + option.replacingAll("-", with: #"\-"#) + #"\fR"#), "\(option) not in the man page")
        }
        for section in [".SH SYNOPSIS", ".SH OPTIONS", ".SH COMPARE", ".SH EXIT STATUS"] { #expect(source.contains(section)) }
        guard Self.installed("man") else {
            TestLog.verbose("man is not installed: the man page's rendering is not checked")
            return
        }
        let folder = TemporaryFolder("masonry-manual")
        try Data(source.utf8).write(to: URL(fileURLWithPath: folder.file("masonry.1")))
        let rendered = try Self.runShell("bash", "MANWIDTH=100 man --warnings -l masonry.1", in: folder.path)
        #expect(rendered.status == 0 && rendered.standardError.isEmpty, "man -l: \(rendered.standardError)")
        let text = rendered.standardOutput
        #expect(text.hasPrefix("MASONRY(1)"))
        for option in options { #expect(text.contains(option), "\(option) not in the page man renders") }
        let trimmed = text.split(separator: "\n").map { $0.drop { $0 == " " } }
        for status in ExitStatus.allCases {
            #expect(trimmed.contains { $0 == "\(status.rawValue)" || $0.hasPrefix("\(status.rawValue) ") }, "status \(status.rawValue)")
        }
        #expect(text.contains(#"\n between lines"#), "a backslash in the help must survive troff")
    }

    @Test func bashCompletesOptionsValuesAndFiles() throws {
        let script = try Self.generated(["--generate-completion", "bash"])
        let folder = try Self.filesFolder()
        try Data(script.utf8).write(to: URL(fileURLWithPath: folder.file("masonry.bash")))
        let renderOptions = try Self.helpOptions(["--help"]), compareOptions = try Self.helpOptions(["compare", "--help"])
        // Each case: the words typed (the last one is being completed) and what must be offered.
        var cases: [(words: [String], expected: [String])] = []
        for option in renderOptions {
            let typed = String(option.dropLast())
            cases.append((["masonry", typed], renderOptions.filter { $0.hasPrefix(typed) }))
        }
        for option in compareOptions {
            let typed = String(option.dropLast())
            cases.append((["masonry", "compare", typed], compareOptions.filter { $0.hasPrefix(typed) }))
        }
        for (command, option) in Self.required {
            cases.append((["masonry"] + command + ["--\(option.long)", ""], option.choices))
            cases.append((["masonry"] + command + ["--\(option.long)", "=", ""], option.choices))
            let word = option.choices[0]
            let sharing = option.choices.filter { $0.hasPrefix(word.prefix(2)) }
            cases.append((["masonry"] + command + ["--\(option.long)", String(word.prefix(2))], sharing))
        }
        for (command, option) in Self.optional {
            cases.append((["masonry"] + command + ["--\(option.long)", "=", ""], option.choices))
            let word = option.choices[0]
            let sharing = option.choices.filter { $0.hasPrefix(word.prefix(2)) }
            cases.append((["masonry"] + command + ["--\(option.long)", "=", String(word.prefix(2))], sharing))
            // After a space the next word is an argument of its own (a compare folder).
            cases.append((["masonry"] + command + ["--\(option.long)", "a"], command == ["compare"] ? ["adir"] : ["a1.png", "a2.jpg", "adir"]))
        }
        cases += [
            (["masonry", "a"], ["a1.png", "a2.jpg", "adir"]),
            (["masonry", "c"], ["compare"]),
            (["masonry", "-o", "a"], ["a1.png", "a2.jpg", "adir"]),
            (["masonry", "--cache", "a"], ["adir"]),
            (["masonry", "--columns", ""], []),
            (["masonry", "compare", "a"], ["adir"]),
            (["masonry", "x", "c"], []),
        ]
        var program = "source ./masonry.bash\ncomplete -p masonry\n"
        for (words, _) in cases {
            let quoted = words.map { "'\($0)'" }.joined(separator: " ")
            program += "COMP_WORDS=(\(quoted)); COMP_CWORD=\(words.count - 1); COMPREPLY=(); _masonry; "
                + "printf '%s\\n' \"$(printf '%s\\n' \"${COMPREPLY[@]}\" | sort | paste -sd' ')\"\n"
        }
        let result = try Self.runShell("bash", program, in: folder.path)
        #expect(result.standardError.isEmpty, "bash: \(result.standardError)")
        var lines = result.standardOutput.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.first == "complete -F _masonry masonry")
        lines.removeFirst()
        #expect(lines.count >= cases.count)
        for (index, (words, expected)) in cases.enumerated() where index < lines.count {
            #expect(lines[index] == expected.sorted().joined(separator: " "), "after \(words.joined(separator: " "))")
        }
    }

    @Test func zshCompletionHasEveryOption() throws {
        let script = try Self.generated(["--generate-completion", "zsh"])
        #expect(script.hasPrefix("#compdef masonry\n"))
        for option in try Self.helpOptions(["--help"]) + Self.helpOptions(["compare", "--help"]) {
            #expect(script.contains("\(option)[") || script.contains("\(option)=[") || script.contains("\(option)=-[")
                    || script.contains(",\(option)") || script.contains(",\(option)="), "\(option) not in the zsh completion")
        }
        for (_, option) in Self.enumerated {
            #expect(script.contains(":(\(option.choices.joined(separator: " ")))'"), "--\(option.long)'s words")
        }
        guard Self.installed("zsh") else {
            TestLog.verbose("zsh is not installed: its completion's syntax is not checked")
            return
        }
        let folder = TemporaryFolder("masonry-zsh")
        try Data(script.utf8).write(to: URL(fileURLWithPath: folder.file("_masonry")))
        let syntax = try Self.runShell("zsh", "zsh -n _masonry && autoload -Uz compinit && compinit -u -d compdump "
                                       + "&& fpath=(. $fpath) && autoload -Uz _masonry && whence -w _masonry", in: folder.path)
        #expect(syntax.status == 0 && syntax.standardError.isEmpty, "zsh: \(syntax.standardError)")
        #expect(syntax.standardOutput.contains("_masonry: function"))

        // Completion for real: an interactive zsh on a pseudo-terminal (zpty) is typed a line and
        // a tab; what it lists is read up to the word expected last (zsh lists them sorted).
        var program = "zmodload zsh/zpty\nzpty z zsh -f -i\n"
            + "zpty -w z 'PS1=; fpath=(\(folder.path) $fpath); autoload -Uz compinit; compinit -u -D; LISTMAX=1000; zstyle \":completion:*\" list-rows-first yes'\n"
        var expected: [(line: String, words: [String])] = Self.enumerated.map { command, option in
            (((["masonry"] + command + ["--\(option.long)" + (option.bareValue == nil ? " " : "=")]).joined(separator: " ")), option.choices)
        }
        expected.append(("masonry compare --thr", ["--threshold"]))
        for (line, words) in expected {
            program += "zpty -w z $'\\C-u\(line)\\t'\nzpty -r z out '*\(words.sorted().last!)*'\nprint -r -- \"$out\"\nprint END\n"
        }
        program += "zpty -d z\n"
        let typed = try Self.runShell("bash", "timeout 60 zsh -f check.zsh.in", in: folder.path, files: ["check.zsh.in": program])
        #expect(typed.status == 0, "zsh on a pty: \(typed.standardError)")
        let answers = typed.standardOutput.components(separatedBy: "END\n")
        for (index, (line, words)) in expected.enumerated() {
            let answer = index < answers.count ? answers[index] : ""
            for word in words { #expect(answer.contains(word), "zsh offers \(word) after '\(line)'") }
        }
    }

    @Test func fishCompletesOptionsValuesAndFolders() throws {
        let script = try Self.generated(["--generate-completion", "fish"])
        for option in try Self.helpOptions(["--help"]) + Self.helpOptions(["compare", "--help"]) {
            #expect(script.contains(" -l \(option.dropFirst(2)) "), "\(option) not in the fish completion")
        }
        guard Self.installed("fish") else {
            TestLog.verbose("fish is not installed: its completion is checked as text only")
            return
        }
        let folder = try Self.filesFolder()
        try Data(script.utf8).write(to: URL(fileURLWithPath: folder.file("masonry.fish")))
        var program = "source masonry.fish\n"
        var expected: [[String]] = []
        let compareOptions = try Self.helpOptions(["compare", "--help"])
        for option in compareOptions {
            program += "complete -C 'masonry compare \(option.dropLast())' | string split -f1 \\t | sort | string join ' '\n"
            expected.append(compareOptions.filter { $0.hasPrefix(option.dropLast()) }.sorted())
        }
        // fish ties words only to options that require a value (ShellCompletion's fish script).
        for (command, option) in Self.required {
            program += "complete -C 'masonry \((command + ["--\(option.long)", ""]).joined(separator: " "))' "
                + "| string split -f1 \\t | sort | string join ' '\n"
            expected.append(option.choices.sorted())
        }
        program += "complete -C 'masonry --cache a' | string split -f1 \\t | string join ' '\n"
        expected.append(["adir/"])
        program += "complete -C 'masonry -o a' | string split -f1 \\t | sort | string join ' '\n"
        expected.append(["a1.png", "a2.jpg", "adir/"])
        let result = try Self.runShell("fish", program, in: folder.path)
        #expect(result.status == 0 && result.standardError.isEmpty, "fish: \(result.standardError)")
        let lines = result.standardOutput.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        for (index, words) in expected.enumerated() {
            #expect(index < lines.count && lines[index] == words.joined(separator: " "), "fish line \(index + 1)")
        }
    }

    @Test func theGeneratorsAreHiddenAndCheckTheirArgument() throws {
        let help = try MasonryExecutable.run(["--help"]).standardOutput
        #expect(!help.contains("generate"))
        let wrong = try MasonryExecutable.run(["--generate-completion", "tcsh"])
        #expect(wrong.status == 64)
        #expect(wrong.errorLines.first == "masonry: error: unknown shell 'tcsh' for '--generate-completion'; expected bash, zsh or fish")
    }
}
