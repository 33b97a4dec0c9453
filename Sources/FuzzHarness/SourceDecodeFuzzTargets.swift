import CodecCore
import MasonrySheet

extension FuzzTarget {
    /// The sheet's two reads of one file, as a page job runs them: the header pass
    /// (`ImageFormats.header(of:limits:)`), then the format's decoder opened through the table
    /// (`ImageFormats.decoder(for:format:expected:…)`) for a 24×24 tile, so every format that
    /// shrinks on load does, and every row read.
    ///
    /// The decoder compares its own header with the header pass's and calls a difference a file
    /// changed while it was read. The file here never changes, so that refusal is a finding: two
    /// readers of the same bytes that disagree (a picture the header pass accepted and the sheet
    /// then skips). A decoder that opens gives exactly its height in rows of its width. (Its size
    /// is not held to the header's here: LibRaw's demosaic of a damaged file may come out a
    /// column narrower than the sensor size it stated; the shrink-on-load rule is checked on every
    /// format's real sample by FormatConformanceTests.)
    static let sourceDecode = FuzzTarget(name: "source-decode") { bytes in
        _ = withInputFile(bytes) { file in
            let (format, header) = try ImageFormats.header(of: file, limits: .fuzzing)
            let tile = 24
            let rows: any RowSource
            do throws(ImageError) {
                rows = try ImageFormats.decoder(for: file, format: format, expected: header, limits: .fuzzing,
                                                minimumWidth: tile, minimumHeight: tile)
            } catch {
                precondition(error != ImageError(.changedWhileReading),
                             "\(format): the decoder's header differs from the header pass's (\(header))")
                throw error
            }
            let rowBytes = rows.width * rows.rowFormat.bytesPerPixel
            var count = 0
            try rows.readRows { _, row in
                precondition(row.count == rowBytes, "\(format): a row of \(row.count) bytes, not \(rowBytes)")
                count += 1
            }
            precondition(count == rows.height, "\(format): \(count) rows of \(rows.height)")
        }
    }
}
