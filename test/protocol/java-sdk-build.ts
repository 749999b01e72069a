import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { newestMtime } from '../support/newest-mtime';

/** The Java SDK (sdks/java): its version (pom.xml), jars and sources. */
export const JAVA_SDK_DIR = resolve(__dirname, '../../sdks/java');

export function javaSdkVersion(): string {
  const version = /^ {2}<version>([^<]+)<\/version>/m.exec(readFileSync(join(JAVA_SDK_DIR, 'pom.xml'), 'utf8'));
  if (!version) throw new Error('sdks/java/pom.xml: no project <version>');
  return version[1];
}

/**
 * Runs sdks/java/build.sh when a jar is missing or older than a source (SDK, examples, pom.xml,
 * build.sh), and returns the classpath of the example executors. Fails loudly without a JDK.
 */
export function ensureJavaSdkBuilt(): string {
  const version = javaSdkVersion();
  const jars = [`baton-executor-sdk-${version}.jar`, `baton-executor-examples-${version}.jar`].map((j) => join(JAVA_SDK_DIR, 'target', j));
  const sources = Math.max(newestMtime(join(JAVA_SDK_DIR, 'src/main')), newestMtime(join(JAVA_SDK_DIR, 'examples')), statSync(join(JAVA_SDK_DIR, 'pom.xml')).mtimeMs, statSync(join(JAVA_SDK_DIR, 'build.sh')).mtimeMs);
  if (jars.some((j) => !existsSync(j) || statSync(j).mtimeMs < sources)) {
    try {
      execFileSync(join(JAVA_SDK_DIR, 'build.sh'), [], { cwd: JAVA_SDK_DIR, stdio: 'pipe', encoding: 'utf8' });
    } catch (err) {
      const e = err as { stderr?: string; stdout?: string; message: string };
      throw new Error(`sdks/java/build.sh failed (it needs a JDK 17 and Debian's Jackson jars: apt-get install openjdk-17-jdk-headless libjackson2-databind-java): ${e.message}\n${e.stdout ?? ''}${e.stderr ?? ''}`);
    }
  }
  return execFileSync(join(JAVA_SDK_DIR, 'build.sh'), ['classpath'], { encoding: 'utf8' }).trim();
}
