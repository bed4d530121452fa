package io.amlease.am.client;

import java.io.IOException;
import java.io.PrintStream;
import java.util.EnumSet;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.YarnApplicationState;
import org.apache.hadoop.yarn.client.api.YarnClient;
import org.apache.hadoop.yarn.exceptions.ApplicationNotFoundException;

/**
 * The staging directories of amlease applications: {@code ~/.amlease/<application id>} on the
 * default filesystem, mode 700 (the settings may carry {@code --env} values). Removed when the
 * application ends: by the AM when it unregisters, by {@code submit --wait} and {@code kill} when
 * they see it end, and, for what they all missed ({@code yarn application -kill}, a client that
 * went away), by the sweep every {@code submit} makes of its user's ended applications.
 */
final class Staging {
  static final String ROOT = ".amlease";
  private static final FsPermission PRIVATE = new FsPermission((short) 0700);
  private static final EnumSet<YarnApplicationState> ENDED = EnumSet.of(
      YarnApplicationState.FINISHED, YarnApplicationState.FAILED, YarnApplicationState.KILLED);

  private Staging() {}

  static Path dir(FileSystem fs, ApplicationId id) {
    return new Path(fs.getHomeDirectory(), ROOT + "/" + id);
  }

  /** Creates the application's directory, private to its user. */
  static Path create(FileSystem fs, ApplicationId id) throws IOException {
    Path dir = dir(fs, id);
    fs.mkdirs(dir, PRIVATE);
    fs.setPermission(dir, PRIVATE); // mkdirs applies the umask
    return dir;
  }

  /** Removes the application's directory; a failure is reported, not thrown. */
  static void delete(FileSystem fs, ApplicationId id, PrintStream err) {
    try {
      fs.delete(dir(fs, id), true);
    } catch (IOException e) {
      err.println("amlease: cannot delete staging directory " + dir(fs, id) + ": " + e);
    }
  }

  /**
   * Removes the directories of this user's applications that YARN reports ended, or no longer
   * knows. Returns how many it removed. A running application's directory is never touched: its
   * next attempt localizes from it.
   */
  static int sweep(FileSystem fs, YarnClient yarn, PrintStream err) {
    Path root = new Path(fs.getHomeDirectory(), ROOT);
    int removed = 0;
    try {
      if (!fs.exists(root)) {
        return 0;
      }
      for (FileStatus st : fs.listStatus(root)) {
        ApplicationId id;
        try {
          id = ApplicationId.fromString(st.getPath().getName());
        } catch (IllegalArgumentException e) {
          continue; // Not ours.
        }
        boolean ended;
        try {
          ended = ENDED.contains(yarn.getApplicationReport(id).getYarnApplicationState());
        } catch (ApplicationNotFoundException e) {
          ended = true;
        }
        if (ended && fs.delete(st.getPath(), true)) {
          removed++;
        }
      }
    } catch (Exception e) {
      err.println("amlease: cannot clean up " + root + ": " + e);
    }
    return removed;
  }

  /**
   * The AM settings submit staged for {@code id} (ZooKeeper, lease path, worker command), or null
   * when they are gone or not readable; a failure to read is reported on {@code err}.
   */
  static org.apache.hadoop.conf.Configuration settings(org.apache.hadoop.conf.Configuration conf,
      ApplicationId id, PrintStream err) {
    try {
      FileSystem fs = FileSystem.get(conf);
      Path file = new Path(dir(fs, id), io.amlease.am.master.ApplicationMaster.SETTINGS_FILE);
      if (!fs.exists(file)) {
        return null;
      }
      org.apache.hadoop.conf.Configuration c = new org.apache.hadoop.conf.Configuration(false);
      try (java.io.InputStream in = fs.open(file)) {
        c.addResource(in);
        c.size(); // Parses now, while the stream is open.
      }
      return c;
    } catch (Exception e) {
      err.println("amlease: cannot read the settings of " + id + ": " + e);
      return null;
    }
  }

}
