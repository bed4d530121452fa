package io.amlease.am.master;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.yarn.api.records.LocalResource;
import org.apache.hadoop.yarn.api.records.LocalResourceType;
import org.apache.hadoop.yarn.api.records.LocalResourceVisibility;
import org.apache.hadoop.yarn.api.records.URL;

/**
 * The files shipped with {@code submit --file} and {@code --archive} (which YARN unpacks), as
 * local resources for worker containers: the
 * copies the client staged for the AM's own container, so that every worker finds them by name in
 * its working directory, as the master does. YARN checks a resource's size and modification time
 * against the file it localizes, so both are read from the staged file itself.
 */
final class ShippedFiles {
  private ShippedFiles() {}

  /**
   * @throws IOException when a staged file is missing or unreadable: workers would fail to start
   */
  static Map<String, LocalResource> of(Configuration conf, String staging, List<String> names,
      List<String> archives) throws IOException {
    Map<String, LocalResource> resources = new LinkedHashMap<>();
    if (names.isEmpty() && archives.isEmpty()) {
      return resources;
    }
    if (staging == null) {
      throw new IOException("files " + names + " " + archives + " were shipped, but "
          + "AMLEASE_STAGING is not set");
    }
    Path dir = new Path(staging);
    FileSystem fs = dir.getFileSystem(conf);
    for (String name : names) {
      resources.put(name, staged(fs, new Path(dir, name), LocalResourceType.FILE));
    }
    for (String name : archives) {
      resources.put(name, staged(fs, new Path(dir, name), LocalResourceType.ARCHIVE));
    }
    return resources;
  }

  private static LocalResource staged(FileSystem fs, Path file, LocalResourceType type)
      throws IOException {
    FileStatus st = fs.getFileStatus(file);
    return LocalResource.newInstance(URL.fromPath(fs.makeQualified(st.getPath())), type,
        LocalResourceVisibility.APPLICATION, st.getLen(), st.getModificationTime());
  }
}
