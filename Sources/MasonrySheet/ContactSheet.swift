/// The entry point for Swift programs (issue #26): a contact sheet of images with the options of
/// `masonry`, written to PNG pages or handed over row by row, and `masonry compare` as
/// `ContactSheet.compare`. Built over `SheetPipeline` and `ComparePipeline`: the same inputs and
/// options give the same bytes as the command.
///
/// ```swift
/// import WaterfallLayout
/// import MasonrySheet
///
/// let layout = try LayoutConfiguration(width: 900, columns: 5)
/// let sheet = ContactSheet(inputs: ["SampleImages"], options: SheetOptions(layout: layout))
/// let result = try sheet.write(to: "sheet.png")
/// print(result.plan.pages.map(\.file.displayName), result.report.rendered)
/// ```
public struct ContactSheet: Sendable {
    /// What a run planned, and what happened while it painted.
    public struct Result: Sendable {
        /// The pages, their tiles and images, decided before any pixel was decoded.
        public let plan: SheetPlan
        /// The files written, the pictures drawn and the inputs skipped (with why).
        public let report: SheetReport
    }

    /// Files, and folders whose images are read (as the command's `<input>` arguments).
    public var inputs: [String]
    public var options: SheetOptions

    public init(inputs: [String], options: SheetOptions) {
        self.inputs = inputs
        self.options = options
    }

    /// Writes the sheet to `output` (a `.png` name; `name-001.png`, … when the plan has several
    /// pages), only page `page` of the plan when given, and a JSON manifest and HTML page when
    /// named. Every file is replaced atomically, or left untouched when this throws.
    public func write(to output: String, manifest: String? = nil, html: String? = nil, page: Int? = nil,
                      events: @escaping @Sendable (SheetEvent) -> Void = { _ in }) throws(SheetError) -> Result {
        var request = self.request(output: output, manifest: manifest)
        request.html = html.map(RawPath.init)
        request.page = page
        let (plan, report) = try SheetPipeline.run(request, rows: nil, events: events)
        return Result(plan: plan, report: report)
    }

    /// Paints every page and hands its rows to `row`, in order, instead of writing any file
    /// (`pageNames` only names the pages in the plan, as `write(to:)` would).
    public func paint(pageNames: String = "sheet.png", events: @escaping @Sendable (SheetEvent) -> Void = { _ in },
                      row: @escaping (SheetRow) -> Void) throws(SheetError) -> Result {
        let (plan, report) = try SheetPipeline.run(request(output: pageNames, manifest: nil), rows: row, events: events)
        return Result(plan: plan, report: report)
    }

    /// Reads the headers and lays the sheet out, decoding no pixel and writing no file.
    public func plan(pageNames: String = "sheet.png") throws(SheetError) -> Result {
        var request = request(output: pageNames, manifest: nil)
        request.planOnly = true
        let (plan, report) = try SheetPipeline.run(request, rows: nil, events: { _ in })
        return Result(plan: plan, report: report)
    }

    /// Compares two folders of PNG screenshots as `masonry compare` does: writes the review
    /// sheet to `output` (and the JSON report and HTML review page when named) and returns every
    /// pair's verdict. Some pair failed when `summary.failed > 0`.
    public static func compare(baseline: String, current: String, output: String = "review.png", report: String? = nil,
                               html: String? = nil, options: CompareOptions = CompareOptions(),
                               events: @escaping @Sendable (SheetEvent) -> Void = { _ in }) throws(SheetError) -> CompareOutcome {
        var request = CompareRequest(baseline: RawPath(baseline), current: RawPath(current), output: RawPath(output),
                                     report: report.map(RawPath.init), options: options)
        request.html = html.map(RawPath.init)
        return try ComparePipeline.run(request, events: events)
    }

    private func request(output: String, manifest: String?) -> SheetRequest {
        SheetRequest(inputs: inputs.map(RawPath.init), output: RawPath(output), manifest: manifest.map(RawPath.init),
                     options: options)
    }
}
