package io.amlease.am.client;

import java.io.PrintStream;
import java.time.Duration;
import org.apache.hadoop.conf.Configured;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.util.Tool;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.YarnApplicationState;
import org.apache.hadoop.yarn.client.api.YarnClient;
import org.apache.hadoop.yarn.exceptions.ApplicationNotFoundException;

/**
 * {@code amlease kill APP_ID}: asks YARN to kill the application, waits until it is KILLED, and
 * removes its staging directory.
 */
public final class KillCommand extends Configured implements Tool {
  private static final Duration WAIT = Duration.ofSeconds(60);
  private final PrintStream out;
  private final PrintStream err;

  public KillCommand(PrintStream out, PrintStream err) {
    this.out = out;
    this.err = err;
  }

  @Override
  public int run(String[] args) throws Exception {
    if (args.length != 1 || args[0].startsWith("-")) {
      err.println("usage: amlease kill [generic options] APP_ID\nExit status: 0 killed (or already "
          + "ended), 1 no such application or not ended within " + WAIT.toSeconds() + "s, 64 bad "
          + "arguments.");
      return args.length == 1 && (args[0].equals("-h") || args[0].equals("--help")) ? 0
          : SubmitCommand.USAGE;
    }
    ApplicationId id;
    try {
      id = ApplicationId.fromString(args[0]);
    } catch (IllegalArgumentException e) {
      err.println("amlease kill: '" + args[0] + "' is not an application id");
      return SubmitCommand.USAGE;
    }
    YarnClient yarn = YarnClient.createYarnClient();
    yarn.init(getConf());
    yarn.start();
    try {
      yarn.killApplication(id);
      long deadline = System.nanoTime() + WAIT.toNanos();
      while (System.nanoTime() < deadline) {
        YarnApplicationState s = yarn.getApplicationReport(id).getYarnApplicationState();
        if (s == YarnApplicationState.KILLED || s == YarnApplicationState.FINISHED
            || s == YarnApplicationState.FAILED) {
          out.println(id + " " + s);
          // The AM of a killed application gets no chance to remove its staging directory.
          Staging.delete(FileSystem.get(getConf()), id, err);
          return 0;
        }
        Thread.sleep(500);
      }
      err.println("amlease kill: " + id + " did not end within " + WAIT.toSeconds() + "s");
      return 1;
    } catch (ApplicationNotFoundException e) {
      err.println("amlease kill: no application " + id);
      return 1;
    } finally {
      yarn.stop();
    }
  }
}
