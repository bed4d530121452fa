package io.amlease.am.client;

import io.amlease.am.AmSettings;
import io.amlease.am.master.ApplicationMaster;
import io.amlease.lease.LeaseConfig;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.io.DataOutputBuffer;
import org.apache.hadoop.security.Credentials;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.yarn.api.ApplicationConstants;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.ApplicationReport;
import org.apache.hadoop.yarn.api.records.ApplicationSubmissionContext;
import org.apache.hadoop.yarn.api.records.ContainerLaunchContext;
import org.apache.hadoop.yarn.api.records.FinalApplicationStatus;
import org.apache.hadoop.yarn.api.records.LocalResource;
import org.apache.hadoop.yarn.api.records.LocalResourceType;
import org.apache.hadoop.yarn.api.records.LocalResourceVisibility;
import org.apache.hadoop.yarn.api.records.NodeLabel;
import org.apache.hadoop.yarn.api.records.Priority;
import org.apache.hadoop.yarn.api.records.QueueInfo;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.ResourceRequest;
import org.apache.hadoop.yarn.api.records.URL;
import org.apache.hadoop.yarn.api.records.YarnApplicationState;
import org.apache.hadoop.yarn.client.api.YarnClient;
import org.apache.hadoop.yarn.client.api.YarnClientApplication;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.exceptions.InvalidResourceRequestException;

/** Talks to the ResourceManager: checks limits, stages files, submits, and optionally waits. */
final class YarnSubmitter implements AutoCloseable {
  /** The cluster refused what was asked (unknown queue, resources above the maximum). */
  static final class Rejected extends Exception {
    Rejected(String message) {
      super(message);
    }
  }

  private static final EnumSet<YarnApplicationState> TERMINAL = EnumSet.of(
      YarnApplicationState.FINISHED, YarnApplicationState.FAILED, YarnApplicationState.KILLED);

  /** Every staged file: readable by the submitting user only, in a directory of mode 700. */
  private static final FsPermission PRIVATE_FILE = new FsPermission((short) 0600);

  /** The name under which the AM finds the ZooKeeper ACL credentials. */
  static final String CREDENTIALS_FILE = "amlease-zk-credentials";

  private final Configuration conf;
  private final PrintStream out;
  private final PrintStream err;
  private final YarnClient yarn;

  YarnSubmitter(Configuration conf, PrintStream out, PrintStream err) {
    this.conf = conf;
    this.out = out;
    this.err = err;
    yarn = YarnClient.createYarnClient();
    yarn.init(conf);
    yarn.start();
  }

  int submit(AmSettings s, Path amJar, List<Path> files, List<Path> archives, boolean wait)
      throws Exception {
    QueueInfo queue = yarn.getQueueInfo(s.queue());
    if (queue == null) {
      throw new Rejected("--queue: no queue '" + s.queue() + "' in this cluster");
    }
    YarnClientApplication app = yarn.createApplication();
    Resource max = app.getNewApplicationResponse().getMaximumResourceCapability();
    checkFits("--am-memory", s.amMemoryMb(), max.getMemorySize(), "MB");
    checkFits("--am-vcores", s.amVcores(), max.getVirtualCores(), "vcores");
    if (s.workers() > 0) {
      checkFits("--worker-memory", s.workerMemoryMb(), max.getMemorySize(), "MB");
      checkFits("--worker-vcores", s.workerVcores(), max.getVirtualCores(), "vcores");
    }
    if (!s.nodeLabel().isEmpty() || !s.amNodeLabel().isEmpty()) {
      List<String> known = yarn.getClusterNodeLabels().stream().map(NodeLabel::getName).toList();
      checkLabel("--node-label", s.nodeLabel(), known, queue);
      checkLabel("--am-node-label", s.amNodeLabel(), known, queue);
    }
    ApplicationSubmissionContext ctx = app.getApplicationSubmissionContext();
    ApplicationId id = ctx.getApplicationId();

    FileSystem fs = FileSystem.get(conf);
    int swept = Staging.sweep(fs, yarn, err);
    if (swept > 0) {
      err.println("amlease submit: removed the staging directories of " + swept
          + " ended application(s)");
    }
    org.apache.hadoop.fs.Path staging = Staging.create(fs, id);
    try {
      stageAndSubmit(s, amJar, files, archives, fs, staging, ctx);
    } catch (Exception | Error e) {
      Staging.delete(fs, id, err); // Nothing half-written is left behind.
      throw e;
    }
    ApplicationReport report = yarn.getApplicationReport(id);
    out.println(id);
    if (UserGroupInformation.isSecurityEnabled() && s.keytab().isEmpty()) {
      err.println("amlease submit: warning: no --principal/--keytab on this secure cluster: the "
          + "application's delegation tokens end with their maximum lifetime "
          + "(dfs.namenode.delegation.token.max-lifetime, 7 days by default); after that its "
          + "workers cannot reach HDFS, and no new worker or AM attempt can localize its files "
          + "unless the RM obtains new tokens for it (yarn.resourcemanager.proxy-user-privileges"
          + ".enabled)");
    }
    err.println("amlease submit: submitted " + id + " (" + s.name() + ") to queue " + s.queue()
        + "; tracking URL " + report.getTrackingUrl() + "; lease " + s.lease().leasePath());
    if (!wait) {
      return 0;
    }
    return await(id, fs);
  }

  private void stageAndSubmit(AmSettings s, Path amJar, List<Path> files, List<Path> archives,
      FileSystem fs, org.apache.hadoop.fs.Path staging, ApplicationSubmissionContext ctx)
      throws Exception {
    Map<String, LocalResource> resources = new HashMap<>();
    resources.put("amlease-am.jar", upload(fs, new org.apache.hadoop.fs.Path(amJar.toUri()),
        staging));
    org.apache.hadoop.fs.Path settingsFile = new org.apache.hadoop.fs.Path(staging,
        ApplicationMaster.SETTINGS_FILE);
    Configuration settings = s.toConfiguration();
    if (s.lease().aclCredentials().isPresent()) {
      shipPrivately(fs, staging, s.lease().aclCredentials().get().file(), CREDENTIALS_FILE,
          resources);
      settings.set(LeaseConfig.ACL_CREDENTIALS, CREDENTIALS_FILE);
    }
    if (!s.keytab().isEmpty()) {
      shipPrivately(fs, staging, Path.of(s.keytab()), AmSettings.KEYTAB_FILE, resources);
      settings.set(AmSettings.KEYTAB, AmSettings.KEYTAB_FILE);
    }
    try (OutputStream o = fs.create(settingsFile)) {
      settings.writeXml(o);
    }
    fs.setPermission(settingsFile, PRIVATE_FILE); // It may carry --env values.
    resources.put(ApplicationMaster.SETTINGS_FILE, resource(fs, settingsFile));
    for (Path f : files) {
      resources.put(f.getFileName().toString(),
          upload(fs, new org.apache.hadoop.fs.Path(f.toAbsolutePath().toUri()), staging));
    }
    for (Path a : archives) {
      LocalResource r = upload(fs, new org.apache.hadoop.fs.Path(a.toAbsolutePath().toUri()),
          staging);
      r.setType(LocalResourceType.ARCHIVE);
      resources.put(a.getFileName().toString(), r);
    }

    Map<String, String> env = new HashMap<>();
    env.put("CLASSPATH", classpath());
    env.put("AMLEASE_STAGING", staging.toString());
    String command = ApplicationConstants.Environment.JAVA_HOME.$$() + "/bin/java "
        + ApplicationConstants.JVM_ADD_OPENS_VAR + " -Xmx" + (s.amMemoryMb() * 3 / 4) + "m"
        + (s.amJavaOpts().isEmpty() ? "" : " " + s.amJavaOpts())
        + " -Dlog4j2.configurationFile=amlease-am-log4j2.xml"
        + " -Dyarn.app.container.log.dir=" + ApplicationConstants.LOG_DIR_EXPANSION_VAR + " "
        + ApplicationMaster.class.getName()
        + " 1>" + ApplicationConstants.LOG_DIR_EXPANSION_VAR + "/AppMaster.stdout"
        + " 2>" + ApplicationConstants.LOG_DIR_EXPANSION_VAR + "/AppMaster.stderr";
    ctx.setAMContainerSpec(ContainerLaunchContext.newInstance(resources, env, List.of(command),
        null, tokens(fs), null));
    ctx.setApplicationName(s.name());
    ctx.setApplicationType("AMLEASE");
    ctx.setQueue(s.queue());
    ctx.setResource(Resource.newInstance(s.amMemoryMb(), s.amVcores()));
    ctx.setMaxAppAttempts(s.maxAttempts());
    ctx.setAttemptFailuresValidityInterval(s.attemptValidity().toMillis());
    ctx.setKeepContainersAcrossApplicationAttempts(true);
    if (!s.nodeLabel().isEmpty()) {
      ctx.setNodeLabelExpression(s.nodeLabel());
    }
    if (!s.effectiveAmNodeLabel().isEmpty()) {
      ResourceRequest am = ResourceRequest.newInstance(Priority.newInstance(0),
          ResourceRequest.ANY, ctx.getResource(), 1);
      am.setNodeLabelExpression(s.effectiveAmNodeLabel());
      ctx.setAMContainerResourceRequests(List.of(am));
    }
    try {
      yarn.submitApplication(ctx);
    } catch (InvalidResourceRequestException e) {
      // What the checks above could not know (the RM checks only the AM's request here).
      throw new Rejected("the ResourceManager refused the request"
          + (s.nodeLabel().isEmpty() && s.amNodeLabel().isEmpty() ? ""
              : " (--node-label '" + s.nodeLabel() + "', --am-node-label '" + s.amNodeLabel()
                  + "', --queue '" + s.queue() + "')") + ": " + e.getMessage());
    }
  }

  /**
   * A secret for the AM's container only (ZooKeeper credentials, a keytab): the AM runs on some
   * node where the client's path means nothing, so it gets its own copy, readable by this user
   * alone, localized for this user only, by {@code name} in its working directory.
   */
  private static void shipPrivately(FileSystem fs, org.apache.hadoop.fs.Path staging, Path local,
      String name, Map<String, LocalResource> resources) throws IOException {
    org.apache.hadoop.fs.Path copy = new org.apache.hadoop.fs.Path(staging, name);
    fs.copyFromLocalFile(false, true, new org.apache.hadoop.fs.Path(
        local.toAbsolutePath().toUri()), copy);
    fs.setPermission(copy, PRIVATE_FILE);
    FileStatus st = fs.getFileStatus(copy);
    resources.put(name, LocalResource.newInstance(URL.fromPath(fs.makeQualified(copy)),
        LocalResourceType.FILE, LocalResourceVisibility.PRIVATE, st.getLen(),
        st.getModificationTime()));
  }

  /**
   * A label the cluster does not have would leave the application waiting for ever, and one the
   * queue may not use fails every worker request (the RM checks only the AM's at submission).
   */
  private static void checkLabel(String flag, String label, List<String> known, QueueInfo queue)
      throws Rejected {
    if (label.isEmpty()) {
      return;
    }
    if (!known.contains(label)) {
      throw new Rejected(flag + ": no node label '" + label + "' in this cluster ("
          + (known.isEmpty() ? "it has none" : "it has " + String.join(", ", known)) + ")");
    }
    java.util.Set<String> usable = queue.getAccessibleNodeLabels();
    if (usable != null && !usable.contains("*") && !usable.contains(label)) {
      throw new Rejected(flag + ": queue '" + queue.getQueueName() + "' may not use node label '"
          + label + "' (" + (usable.stream().allMatch(String::isEmpty) ? "it may use none"
              : "it may use " + String.join(", ", usable.stream().filter(l -> !l.isEmpty())
                  .sorted().toList())) + ")");
    }
  }

  private int await(ApplicationId id, FileSystem fs) throws Exception {
    YarnApplicationState last = null;
    while (true) {
      ApplicationReport r = yarn.getApplicationReport(id);
      if (r.getYarnApplicationState() != last) {
        last = r.getYarnApplicationState();
        err.println("amlease submit: " + id + " " + last + " (attempt "
            + r.getCurrentApplicationAttemptId() + ")");
      }
      if (TERMINAL.contains(last)) {
        Staging.delete(fs, id, err);
        err.println("amlease submit: final status " + r.getFinalApplicationStatus()
            + (r.getDiagnostics().isEmpty() ? "" : ": " + r.getDiagnostics()));
        return r.getFinalApplicationStatus() == FinalApplicationStatus.SUCCEEDED ? 0 : 1;
      }
      Thread.sleep(1000);
    }
  }

  private static void checkFits(String flag, long asked, long max, String unit) throws Rejected {
    if (asked > max) {
      throw new Rejected(flag + " " + asked + " exceeds the cluster's maximum allocation of " + max
          + " " + unit);
    }
  }

  private String classpath() {
    StringBuilder cp = new StringBuilder(ApplicationConstants.Environment.CLASSPATH.$$())
        .append(ApplicationConstants.CLASS_PATH_SEPARATOR).append("./*");
    for (String entry : conf.getStrings(YarnConfiguration.YARN_APPLICATION_CLASSPATH,
        YarnConfiguration.DEFAULT_YARN_CROSS_PLATFORM_APPLICATION_CLASSPATH)) {
      cp.append(ApplicationConstants.CLASS_PATH_SEPARATOR).append(entry.trim());
    }
    if (conf.getBoolean(YarnConfiguration.IS_MINI_YARN_CLUSTER, false)) {
      // MiniYARNCluster has no Hadoop install: the containers use the test JVM's class path.
      cp.append(ApplicationConstants.CLASS_PATH_SEPARATOR)
          .append(System.getProperty("java.class.path"));
    }
    return cp.toString();
  }

  private ByteBuffer tokens(FileSystem fs) throws IOException {
    if (!UserGroupInformation.isSecurityEnabled()) {
      return null;
    }
    Credentials creds = new Credentials();
    String renewer = conf.get(YarnConfiguration.RM_PRINCIPAL);
    fs.addDelegationTokens(renewer, creds);
    DataOutputBuffer buf = new DataOutputBuffer();
    creds.writeTokenStorageToStream(buf);
    return ByteBuffer.wrap(buf.getData(), 0, buf.getLength());
  }

  private static LocalResource upload(FileSystem fs, org.apache.hadoop.fs.Path local,
      org.apache.hadoop.fs.Path staging) throws IOException {
    org.apache.hadoop.fs.Path dst = new org.apache.hadoop.fs.Path(staging, local.getName());
    fs.copyFromLocalFile(false, true, local, dst);
    fs.setPermission(dst, PRIVATE_FILE);
    return resource(fs, dst);
  }

  private static LocalResource resource(FileSystem fs, org.apache.hadoop.fs.Path p)
      throws IOException {
    FileStatus st = fs.getFileStatus(p);
    return LocalResource.newInstance(URL.fromPath(fs.makeQualified(p)), LocalResourceType.FILE,
        LocalResourceVisibility.APPLICATION, st.getLen(), st.getModificationTime());
  }

  @Override
  public void close() {
    yarn.stop();
  }
}
