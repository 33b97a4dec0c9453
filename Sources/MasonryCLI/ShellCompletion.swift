/// Completion scripts for bash, zsh and fish (`masonry --generate-completion <shell>`; `make
/// install` installs them), made from the option tables that `--help` prints: option names,
/// the words of enumerated values (`OptionSpec.choices`), files and folders. A new option, or
/// a new word of one, is completed once it is declared in its table.
enum ShellCompletion: String, CaseIterable {
    case bash, zsh, fish

    /// The command and the table its options come from: a render, and `masonry compare`.
    private static let commands: [(name: String, table: [OptionSpec])] = [("render", optionTable), ("compare", compareOptionTable)]

    var script: String {
        switch self {
        case .bash: Self.bashScript
        case .zsh: Self.zshScript
        case .fish: Self.fishScript
        }
    }

    /// The names an option is typed as: `-o` and `--output`.
    private static func spellings(_ option: OptionSpec) -> [String] {
        (option.short.map { ["-\($0)"] } ?? []) + ["--\(option.long)"]
    }

    /// The help's first sentence, as a completion's description.
    private static func summary(_ option: OptionSpec) -> String {
        let help = option.help
        guard let end = help.firstRange(of: ". ") else { return help.hasSuffix(".") ? String(help.dropLast()) : help }
        return String(help[..<end.lowerBound])
    }

    // MARK: bash

    private static var bashScript: String {
        var lines = [
            "# bash completion for masonry (made by `masonry --generate-completion bash`)",
            "_masonry() {",
            "    local cur=\"${COMP_WORDS[COMP_CWORD]}\" prev=\"${COMP_WORDS[COMP_CWORD-1]}\" command=render",
            "    # --option=value: bash splits at '=' (COMP_WORDBREAKS); an optional value is only ever typed so.",
            "    local equals=0",
            "    if [[ $cur == = ]]; then cur=; equals=1; elif [[ $prev == = ]]; then prev=\"${COMP_WORDS[COMP_CWORD-2]}\"; equals=1; fi",
            "    if [[ ${COMP_WORDS[1]} == compare ]] && (( COMP_CWORD > 1 )); then command=compare; fi",
            "    case \"$command $prev\" in",
        ]
        for (name, table) in commands {
            for option in table where option.value != nil {
                let patterns = spellings(option).map { "\"\(name) \($0)\"" }.joined(separator: "|")
                let action = switch option.completion {
                case .words(let words): "COMPREPLY=($(compgen -W \"\(words.joined(separator: " "))\" -- \"$cur\"))"
                case .file: "compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -f -- \"$cur\"))"
                case .directory: "compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -d -- \"$cur\"))"
                case .none: "COMPREPLY=()"
                }
                // An optional value (`--update-baseline[=mode]`) follows only an `=`; after a space
                // the next word is an argument of its own.
                let guarded = option.bareValue == nil ? "\(action); return" : "if (( equals )); then \(action); return; fi"
                lines.append("        \(patterns)) \(guarded) ;;")
            }
        }
        lines += ["    esac"]
        for (name, table) in commands {
            let names = table.flatMap(spellings).joined(separator: " ")
            lines.append("    local \(name)_options=\"\(names)\"")
        }
        lines += [
            "    if [[ $cur == -* ]]; then",
            "        local options=\"${command}_options\"",
            "        COMPREPLY=($(compgen -W \"${!options}\" -- \"$cur\"))",
            "        return",
            "    fi",
            "    compopt -o filenames 2>/dev/null",
            "    if [[ $command == compare ]]; then COMPREPLY=($(compgen -d -- \"$cur\")); return; fi",
            "    COMPREPLY=($(compgen -f -- \"$cur\"))",
            "    if (( COMP_CWORD == 1 )); then COMPREPLY+=($(compgen -W compare -- \"$cur\")); fi",
            "}",
            "complete -F _masonry masonry",
        ]
        return lines.joined(separator: "\n") + "\n"
    }

    // MARK: zsh

    private static var zshScript: String {
        var lines = [
            "#compdef masonry",
            "# zsh completion for masonry (made by `masonry --generate-completion zsh`)",
            "_masonry() {",
            "    if [[ ${words[2]} == compare ]] && (( CURRENT > 2 )); then",
            "        shift words",
            "        (( CURRENT-- ))",
        ]
        lines += zshArguments(compareOptionTable, then: ["'1:baseline folder:_files -/'", "'2:current folder:_files -/'"],
                              indent: "        ")
        lines += ["        return", "    fi"]
        lines += zshArguments(optionTable, then: ["'*:input:_masonry_inputs'"], indent: "    ")
        lines += [
            "}",
            "_masonry_inputs() {",
            "    (( CURRENT == 2 )) && compadd compare",
            "    _files",
            "}",
            "_masonry \"$@\"",
        ]
        return lines.joined(separator: "\n") + "\n"
    }

    /// One `_arguments` call over `table`'s options and then the `positional` specs, a line each.
    private static func zshArguments(_ table: [OptionSpec], then positional: [String], indent: String) -> [String] {
        let specs = table.map(zshSpec) + positional
        return ["\(indent)_arguments -s \\"] + specs.enumerated().map { index, spec in
            "\(indent)    \(spec)" + (index < specs.count - 1 ? " \\" : "")
        }
    }

    /// One `_arguments` spec: `'(-o --output)'{-o+,--output=}'[help]:path:_files'`.
    private static func zshSpec(_ option: OptionSpec) -> String {
        let description = "[" + zshEscaped(summary(option)) + "]"
        var value = ""
        if let placeholder = option.value {
            let action = switch option.completion {
            case .words(let words): "(\(words.joined(separator: " ")))"
            case .file: "_files"
            case .directory: "_files -/"
            case .none: " "
            }
            value = ":" + zshEscaped(placeholder) + ":" + action
        }
        // `=-`: the value is optional and only follows an `=` (`--update-baseline[=mode]`).
        let suffix = option.value == nil ? "" : option.bareValue == nil ? "=" : "=-"
        guard let short = option.short else { return quoted("--\(option.long)\(suffix)" + description + value) }
        let shortSuffix = option.value == nil ? "" : "+"
        return quoted("(-\(short) --\(option.long))") + "{-\(short)\(shortSuffix),--\(option.long)\(suffix)}"
            + quoted(description + value)
    }

    private static func zshEscaped(_ text: String) -> String {
        var result = ""
        for character in text {
            if "[]:\\".contains(character) { result.append("\\") }
            result.append(character)
        }
        return result
    }

    /// `text` in single quotes for sh-like shells (zsh, bash).
    private static func quoted(_ text: String) -> String {
        "'" + text.replacingAll("'", with: #"'\''"#) + "'"
    }

    // MARK: fish

    private static var fishScript: String {
        var lines = [
            "# fish completion for masonry (made by `masonry --generate-completion fish`)",
            "function __masonry_compare",
            "    set -l tokens (commandline -opc)",
            "    test (count $tokens) -ge 2; and test \"$tokens[2]\" = compare",
            "end",
            "complete -c masonry -n 'test (count (commandline -opc)) -eq 1' -a compare -d "
                + fishQuoted(CompareCommand.overview.dropLast()),
        ]
        for (name, table) in commands {
            let condition = name == "compare" ? "__masonry_compare" : "not __masonry_compare"
            for option in table {
                var line = "complete -c masonry -n '\(condition)'"
                if let short = option.short { line += " -s \(short)" }
                line += " -l \(option.long)"
                switch option.completion {
                // fish ties words to an option only when it requires a value; an optional value
                // (`--update-baseline[=mode]`) completes as the option alone.
                case .words where option.bareValue != nil: line += " -f"
                case .words(let words): line += " -x -a " + fishQuoted(words.joined(separator: " "))
                case .file: line += " -r -F"
                case .directory: line += " -x -a '(__fish_complete_directories)'"
                case .none: if option.value != nil { line += " -x" }
                }
                lines.append(line + " -d " + fishQuoted(summary(option)))
            }
        }
        lines.append("complete -c masonry -n '__masonry_compare' -x -a '(__fish_complete_directories)'")
        return lines.joined(separator: "\n") + "\n"
    }

    private static func fishQuoted(_ text: some StringProtocol) -> String {
        "'" + text.replacingAll("\\", with: #"\\"#).replacingAll("'", with: #"\'"#) + "'"
    }
}

/// The hidden generators behind `make install`: `masonry --generate-manual` and
/// `masonry --generate-completion bash|zsh|fish` print the man page or a completion script.
/// They are not in `--help`, the man page or the completions: they are for packaging, as
/// swift-argument-parser's `--generate-completion-script` is.
enum GeneratedDocs {
    /// The output and exit status when `arguments` asks for a generator, else nil.
    static func run(_ arguments: [[UInt8]], output: Terminal) -> Int32? {
        let words = arguments.map { String(decoding: $0, as: UTF8.self) }
        switch words.first {
        case "--generate-manual" where words.count == 1:
            output.standardOutput(ManualPage.text)
        case "--generate-completion" where words.count == 2:
            guard let shell = ShellCompletion(rawValue: words[1]) else {
                output.standardError(MasonryCommand.usageFailure(
                    "unknown shell '\(words[1])' for '--generate-completion'; expected "
                        + proseList(ShellCompletion.allCases.map(\.rawValue)),
                    usage: "masonry --generate-completion bash|zsh|fish", help: "masonry --help"))
                return ExitStatus.usage.rawValue
            }
            output.standardOutput(shell.script)
        default:
            return nil
        }
        return ExitStatus.written.rawValue
    }
}
