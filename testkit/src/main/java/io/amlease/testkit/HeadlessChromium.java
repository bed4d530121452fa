package io.amlease.testkit;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * A real browser for testing pages: Debian's {@code chromium} in headless mode, run once per call.
 * {@link #dumpDom} returns the DOM after the page loaded (what a person would see, as HTML);
 * {@link #screenshot} writes a PNG. Runs with {@code --no-sandbox}, which Chromium needs as root.
 */
public final class HeadlessChromium {
  private static final List<String> NAMES = List.of("chromium", "chromium-browser",
      "chromium-headless-shell", "google-chrome");
  private static final Duration TIMEOUT = Duration.ofSeconds(60);

  private final Path binary;

  private HeadlessChromium(Path binary) {
    this.binary = binary;
  }

  /** The first Chromium found on the PATH, if any. */
  public static Optional<HeadlessChromium> find() {
    String path = System.getenv("PATH");
    if (path == null) {
      return Optional.empty();
    }
    for (String name : NAMES) {
      for (String dir : path.split(":")) {
        Path p = Path.of(dir, name);
        if (Files.isExecutable(p)) {
          return Optional.of(new HeadlessChromium(p));
        }
      }
    }
    return Optional.empty();
  }

  public String dumpDom(String url) throws IOException, InterruptedException {
    return run(List.of("--dump-dom", url));
  }

  public void screenshot(String url, Path png, int width, int height)
      throws IOException, InterruptedException {
    Files.deleteIfExists(png);
    run(List.of("--screenshot=" + png.toAbsolutePath(), "--window-size=" + width + "," + height,
        "--hide-scrollbars", url));
    if (!Files.isRegularFile(png) || Files.size(png) == 0) {
      throw new IOException("chromium wrote no screenshot to " + png);
    }
  }

  private String run(List<String> args) throws IOException, InterruptedException {
    Path profile = Files.createTempDirectory("amlease-chromium");
    List<String> cmd = new ArrayList<>(List.of(binary.toString(), "--headless", "--no-sandbox",
        "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run", "--disable-extensions",
        "--user-data-dir=" + profile));
    cmd.addAll(args);
    Path out = Files.createTempFile("amlease-chromium", ".out");
    try {
      Process p = new ProcessBuilder(cmd).redirectOutput(out.toFile())
          .redirectError(ProcessBuilder.Redirect.DISCARD).start();
      if (!p.waitFor(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
        p.descendants().forEach(ProcessHandle::destroyForcibly);
        p.destroyForcibly();
        throw new IOException("chromium did not finish within " + TIMEOUT + ": " + cmd);
      }
      if (p.exitValue() != 0) {
        throw new IOException("chromium exited " + p.exitValue() + ": " + cmd);
      }
      return Files.readString(out, StandardCharsets.UTF_8);
    } finally {
      Files.deleteIfExists(out);
      Trees.delete(profile);
    }
  }
}
