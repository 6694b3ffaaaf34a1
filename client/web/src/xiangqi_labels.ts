// Xiangqi edge labels in WXF: each side counts the files 1..9 from its own right, as the move
// list's WXF does (protocol.md, "Xiangqi has one notation story"). Red's file 1 is the wire file
// i, black's file 1 the wire file a; so the near side's edge reads 9..1 from left to right and
// the far side's 1..9, whichever way the board is turned.
import type { Color } from './variants';

const WIRE_FILES = 'abcdefghi';

export interface FileLabel {
  /** The WXF file number as the side on that edge counts it. */
  number: number;
  /** The wire file letter under it. */
  file: string;
}

/** Left-to-right labels of the top and bottom edges for a board seen from `orientation`. */
export function wxfFileLabels(orientation: Color): { top: FileLabel[]; bottom: FileLabel[]; bottomSeat: Color } {
  // Left to right on the screen: files a..i with red at the bottom, i..a with black there.
  const files = orientation === 'white' ? [...WIRE_FILES] : [...WIRE_FILES].reverse();
  const redNumber = (file: string) => 9 - WIRE_FILES.indexOf(file);
  const blackNumber = (file: string) => WIRE_FILES.indexOf(file) + 1;
  const near = orientation === 'white' ? redNumber : blackNumber;
  const far = orientation === 'white' ? blackNumber : redNumber;
  return {
    top: files.map((file) => ({ number: far(file), file })),
    bottom: files.map((file) => ({ number: near(file), file })),
    bottomSeat: orientation,
  };
}
