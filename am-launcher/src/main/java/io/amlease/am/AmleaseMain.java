package io.amlease.am;

import io.amlease.am.client.FlexCommand;
import io.amlease.am.client.KillCommand;
import io.amlease.am.client.StatusCommand;
import io.amlease.am.client.SubmitCommand;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.apache.hadoop.util.Tool;
import org.apache.hadoop.util.ToolRunner;
import org.apache.hadoop.yarn.conf.YarnConfiguration;

/**
 * {@code bin/amlease submit|status|kill|flex}: the YARN client commands, each through {@link ToolRunner}
 * so that Hadoop's generic options ({@code -conf}, {@code -D}, {@code -fs}) work. The only
 * {@code System.exit} of the client.
 */
public final class AmleaseMain {
  private AmleaseMain() {}

  public static void main(String[] args) throws Exception {
    Tool tool = args.length == 0 ? null : switch (args[0]) {
      case "submit" -> new SubmitCommand(System.out, System.err);
      case "status" -> new StatusCommand(System.out, System.err);
      case "kill" -> new KillCommand(System.out, System.err);
      case "flex" -> new FlexCommand(System.out, System.err);
      default -> null;
    };
    if (tool == null) {
      System.err.println("usage: amlease submit|status|kill|flex [generic options] ...");
      System.exit(SubmitCommand.USAGE);
    }
    YarnConfiguration conf = new YarnConfiguration();
    String confDir = System.getProperty("amlease.conf.dir");
    if (confDir != null && Files.isRegularFile(Path.of(confDir, "amlease-site.xml"))) {
      conf.addResource(new org.apache.hadoop.fs.Path(confDir, "amlease-site.xml"));
    }
    String[] rest = Arrays.copyOfRange(args, 1, args.length);
    System.exit(tool instanceof SubmitCommand
        ? SubmitCommand.submit(conf, System.out, System.err, rest)
        : ToolRunner.run(conf, tool, rest));
  }
}
