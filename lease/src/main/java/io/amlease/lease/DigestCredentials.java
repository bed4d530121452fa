package io.amlease.lease;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * ZooKeeper digest credentials of a lease's principal, read from a file: never from a command line,
 * where {@code ps} would show them.
 */
public record DigestCredentials(Path file, String user, String password) {

  @Override
  public String toString() {
    return "DigestCredentials[user=" + user + ", file=" + file + "]";
  }

  /**
   * Reads one line {@code user:password} from {@code file}.
   *
   * @throws LeaseConfigException naming {@link LeaseConfig#ACL_CREDENTIALS}
   */
  public static DigestCredentials load(Path file) {
    String key = LeaseConfig.ACL_CREDENTIALS;
    String text;
    try {
      text = Files.readString(file, StandardCharsets.UTF_8).strip();
    } catch (IOException e) {
      throw new LeaseConfigException(key, key + ": cannot read credentials file " + file + " ("
          + e.getClass().getSimpleName() + ")");
    }
    int colon = text.indexOf(':');
    if (colon < 1 || colon == text.length() - 1 || text.contains("\n")) {
      throw new LeaseConfigException(key, key + ": " + file
          + " must hold one line 'user:password' (digest credentials)");
    }
    return new DigestCredentials(file, text.substring(0, colon), text.substring(colon + 1));
  }
}
