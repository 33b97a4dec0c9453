/// `masonry(1)`, in man(7) markup, from the option tables, arguments and exit statuses that
/// `--help` prints (`masonry --generate-manual`; `make install` installs it), so the page and
/// the help cannot drift apart.
enum ManualPage {
    static var text: String {
        var lines = [
            #".TH MASONRY 1 "" "masonry \#(MasonryCommand.version)" "User Commands""#,
            ".nh", ".ad l",
            ".SH NAME", #"masonry \- "# + escaped(lowercasingFirst(HelpText.overview.dropLast())),
            ".SH SYNOPSIS",
            #".B masonry"#, #"[\fIoptions\fR] \fIinput\fR ..."#, ".br",
            #".B masonry compare"#, #"\fIbaseline\fR \fIcurrent\fR [\fIoptions\fR]"#,
            ".SH DESCRIPTION", escaped(HelpText.overview),
            "Folders give their images, laid out in equal-width columns, each image appended to the shortest "
                + "column; big folders become pages. " + #"\fBmasonry compare\fR"# + " draws two folders of "
                + "screenshots, pair by pair, on one review sheet.",
            ".SH ARGUMENTS",
        ]
        lines += HelpText.arguments.flatMap(entry)
        lines += [".SH OPTIONS"] + optionTable.flatMap(entry)
        lines += [".SH COMPARE", #".B masonry compare"#, #"\fIbaseline\fR \fIcurrent\fR [\fIoptions\fR]"#, ".PP",
                  escaped(CompareCommand.overview), ".SS Arguments"]
        lines += CompareCommand.arguments.flatMap(entry)
        lines += [".SS Options"] + compareOptionTable.flatMap(entry)
        lines += [".SH EXAMPLES"] + HelpText.examples.flatMap { command, meaning in entry((command, meaning)) }
        lines += [".SH EXIT STATUS", ".SS masonry"]
        lines += ExitStatus.allCases.flatMap { entry(("\($0.rawValue)", $0.meaning)) }
        lines += [".SS masonry compare"] + CompareCommand.exitStatuses.flatMap(entry)
        lines += [".SH SEE ALSO", #"\fBmasonry \-\-help\fR, \fBmasonry compare \-\-help\fR, and README.md in the source."#]
        return lines.joined(separator: "\n") + "\n"
    }

    /// One option as a tagged paragraph: `-o, --output <path>` over its help and default.
    private static func entry(_ option: OptionSpec) -> [String] {
        var tag = option.short.map { #"\fB\-\#($0)\fR, "# } ?? ""
        tag += #"\fB\-\-"# + escaped(option.long) + #"\fR"#
        if let value = option.value {
            tag += option.bareValue == nil ? #" \fI"# + escaped(value) + #"\fR"# : #"[=\fI"# + escaped(value) + #"\fR]"#
        }
        return [".TP", tag, escaped(option.help + (option.defaultText.map { " (default: \($0))" } ?? ""))]
    }

    /// An argument or exit status as a tagged paragraph.
    private static func entry(_ item: (name: String, meaning: String)) -> [String] {
        [".TP", #"\fB"# + escaped(item.name) + #"\fR"#, escaped(item.meaning)]
    }

    /// Text as troff reads it literally: backslashes and dashes escaped, and a leading `.` or
    /// `'` kept from starting a request.
    static func escaped(_ text: some StringProtocol) -> String {
        let body = text.replacingAll("\\", with: #"\e"#).replacingAll("-", with: #"\-"#)
        return body.first == "." || body.first == "'" ? #"\&"# + body : body
    }

    private static func lowercasingFirst(_ text: some StringProtocol) -> String {
        text.prefix(1).lowercased() + text.dropFirst()
    }
}

extension StringProtocol {
    /// A copy with every `target` character replaced by `replacement` (no Foundation needed).
    func replacingAll(_ target: Character, with replacement: String) -> String {
        var result = ""
        for character in self { if character == target { result += replacement } else { result.append(character) } }
        return result
    }
}
