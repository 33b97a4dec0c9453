// Makes a contact sheet of a folder three ways with Masonry's library: written to PNG pages,
// painted row by row into the program's own hands, and compared against itself.
//
//   swift run ContactSheetExample [<folder> [<sheet.png>]]    (from Examples/ContactSheetExample)
import Foundation
import WaterfallLayout
import MasonrySheet

func makeSheets(of folder: String, into output: String) throws {
    // 1. 900 px wide, 5 columns, each picture captioned with its name: written as PNG pages.
    var options = SheetOptions(layout: try LayoutConfiguration(width: 900, columns: 5))
    options.style.caption = try CaptionFormat(parsing: "{stem}")
    let sheet = ContactSheet(inputs: [folder], options: options)
    let result = try sheet.write(to: output)
    for page in result.report.written { print("wrote \(page.file.displayName) (\(page.width)x\(page.height))") }
    print("\(result.plan.images.count) images planned on \(result.plan.pages.count) page(s), "
          + "\(result.report.rendered) drawn, \(result.report.skipped.count) skipped")

    // 2. The same sheet, its rows handed over instead of written: here, their mean sample value.
    var total = 0, samples = 0, rows = 0
    _ = try sheet.paint { row in
        for sample in row.pixels { total += Int(sample) }
        samples += row.pixels.count
        rows += 1
    }
    print("painted \(rows) rows, mean sample value \(total / max(samples, 1))")

    // 3. masonry compare: the folder against itself, so every pair is unchanged.
    let outcome = try ContactSheet.compare(baseline: folder, current: folder, output: "review.png")
    print("compare: \(outcome.summary.line)")
}

let arguments = Array(CommandLine.arguments.dropFirst())
do {
    try makeSheets(of: arguments.first ?? "../../SampleImages", into: arguments.dropFirst().first ?? "sheet.png")
} catch {
    print("ContactSheetExample: \(error)")
    exit(1)
}
