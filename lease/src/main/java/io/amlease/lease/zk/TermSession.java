package io.amlease.lease.zk;

import java.util.HexFormat;

/**
 * The ZooKeeper session of a term, as a process outside the holder needs it to end the session on
 * the holder's behalf once the holder is dead and nothing it ran is left (a crashed runner's
 * reaper): the contender then acquires at once instead of after the session timeout. The password
 * is the session's secret: pass it through a pipe or a private file, never on a command line.
 *
 * @param connectString the ensemble the session lives on
 * @param id the session id
 * @param password the session password ZooKeeper gave the holder
 */
public record TermSession(String connectString, long id, byte[] password) {

  /** One line, {@code CONNECT ID-HEX PASSWORD-HEX}, for a pipe; {@link #parse} reads it back. */
  public String toLine() {
    return connectString + " " + Long.toHexString(id) + " " + HexFormat.of().formatHex(password);
  }

  /** Reads {@link #toLine()}'s format. */
  public static TermSession parse(String line) {
    String[] parts = line.trim().split(" ");
    if (parts.length != 3) {
      throw new IllegalArgumentException("expected 'CONNECT ID PASSWORD', got " + parts.length
          + " fields");
    }
    return new TermSession(parts[0], Long.parseUnsignedLong(parts[1], 16),
        HexFormat.of().parseHex(parts[2]));
  }
}
