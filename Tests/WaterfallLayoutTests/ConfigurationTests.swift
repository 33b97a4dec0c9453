import WaterfallLayout
import Testing

@Suite struct ConfigurationTests {
    @Test func defaults() throws {
        let configuration = try LayoutConfiguration()
        // avail = 1200 - 8 - 8 - 8*3 = 1160 = 4 * 290.
        #expect(configuration.width == 1200)
        #expect(configuration.columns == 4)
        #expect(configuration.columnWidths == [290, 290, 290, 290])
        #expect(configuration.columnXs == [8, 306, 604, 902])
        #expect(configuration.order == .shortest)
        #expect(configuration.tolerance == 0)
        #expect(configuration.maxTileAspect == 4)
    }

    @Test func leftoverPixelsGoToTheLeftmostColumns() throws {
        // avail = 105 - 3*1 = 102 = 4*25 + 2: the first two columns get 26.
        let configuration = try LayoutConfiguration(width: 105, columns: 4, columnGap: 1, insets: .zero)
        #expect(configuration.columnWidths == [26, 26, 25, 25])
        // x1 = 0 + 26 + 1, x2 = 27 + 26 + 1, x3 = 54 + 25 + 1; 80 + 25 = 105 fills the width.
        #expect(configuration.columnXs == [0, 27, 54, 80])
    }

    @Test func derivesTheMissingValue() throws {
        // width + columnWidth: (1200 - 16 + 8) / (300 + 8) = 3 columns; avail 1168 = 3*389 + 1.
        let fromWidth = try LayoutConfiguration(width: 1200, columnWidth: 300)
        #expect(fromWidth.columns == 3)
        #expect(fromWidth.columnWidths == [390, 389, 389])
        // columns + columnWidth: 8 + 8 + 3*100 + 2*8 = 332.
        let fromColumns = try LayoutConfiguration(columns: 3, columnWidth: 100)
        #expect(fromColumns.width == 332)
        #expect(fromColumns.columnWidths == [100, 100, 100])
        // all three, consistent.
        #expect(try LayoutConfiguration(width: 332, columns: 3, columnWidth: 100) == fromColumns)
        // only columnWidth: 4 columns, 16 + 400 + 24 = 440.
        #expect(try LayoutConfiguration(columnWidth: 100).width == 440)
        // only columns: width 1200; only width: 4 columns.
        #expect(try LayoutConfiguration(columns: 5).width == 1200)
        #expect(try LayoutConfiguration(width: 800).columns == 4)
    }

    struct BadOptions: Sendable, CustomTestStringConvertible {
        let make: @Sendable () throws -> LayoutConfiguration
        let message: String
        var testDescription: String { message }
    }

    @Test(arguments: [
        BadOptions(make: { try LayoutConfiguration(columns: 0) }, message: "columns must be at least 1 (got 0)"),
        BadOptions(make: { try LayoutConfiguration(columns: .max) },
                   message: "columns must be at most 65536 (got 9223372036854775807)"),
        BadOptions(make: { try LayoutConfiguration(width: 1 << 20, columnWidth: 1, columnGap: 0) },
                   message: "columns of 1 px in width 1048576 would be 1048560 columns, more than the limit 65536"),
        BadOptions(make: { try LayoutConfiguration(width: 20, columns: 4) },
                   message: "4 columns do not fit in width 20: each column would be narrower than 1 px"),
        BadOptions(make: { try LayoutConfiguration(width: 0) }, message: "width must be at least 1 (got 0)"),
        BadOptions(make: { try LayoutConfiguration(width: 1 << 25) }, message: "width must be at most 16777216 (got 33554432)"),
        BadOptions(make: { try LayoutConfiguration(columnWidth: 0) }, message: "columnWidth must be at least 1 (got 0)"),
        BadOptions(make: { try LayoutConfiguration(columnGap: -1) }, message: "columnGap must be at least 0 (got -1)"),
        BadOptions(make: { try LayoutConfiguration(rowGap: .max) },
                   message: "rowGap must be at most 16777216 (got 9223372036854775807)"),
        BadOptions(make: { try LayoutConfiguration(insets: .init(top: 0, right: 0, bottom: 0, left: .min)) },
                   message: "insets.left must be at least 0 (got -9223372036854775808)"),
        BadOptions(make: { try LayoutConfiguration(tolerance: -5) }, message: "tolerance must be at least 0 (got -5)"),
        BadOptions(make: { try LayoutConfiguration(maxTileAspect: 0) }, message: "maxTileAspect must be at least 1 (got 0)"),
        BadOptions(make: { try LayoutConfiguration(width: 100, columnWidth: 200) },
                   message: "a column of 200 px does not fit in width 100 with insets 8 and 8"),
        // 8 + 8 + 3 * 2^24 + 2 * 8 = 50331680.
        BadOptions(make: { try LayoutConfiguration(columns: 3, columnWidth: 1 << 24) },
                   message: "3 columns of 16777216 px need a sheet 50331680 px wide, more than the limit 16777216"),
        // 8 + 8 + 4 * 200 + 3 * 8 = 840.
        BadOptions(make: { try LayoutConfiguration(width: 1200, columns: 4, columnWidth: 200) },
                   message: "width 1200 does not match 4 columns of 200 px, which need 840 px: give only two of width, columns and columnWidth"),
    ])
    func rejectsBadOptions(_ options: BadOptions) {
        let error = #expect(throws: LayoutError.self) { try options.make() }
        #expect(error?.description == options.message)
    }
}
