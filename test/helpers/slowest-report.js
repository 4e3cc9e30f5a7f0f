const path = require('node:path');

/** How many of the slowest test files a whole-suite run prints. */
const SHOWN = 10;

/**
 * A jest reporter: after a run of the whole suite, its ten slowest test files with their projects and times, so a
 * file that grows slow is seen in the run that made it so (docs/benchmarks.md keeps the suite's time per tier).
 */
class SlowestReport {
  constructor(globalConfig) {
    this.rootDir = globalConfig.rootDir;
  }

  onRunComplete(_contexts, results) {
    if (results.numTotalTestSuites < 20) return;
    const files = results.testResults
      .map((r) => ({
        file: path.relative(this.rootDir, r.testFilePath),
        project: r.displayName?.name ?? '',
        seconds: (r.perfStats.end - r.perfStats.start) / 1000,
      }))
      .sort((a, b) => b.seconds - a.seconds)
      .slice(0, SHOWN);
    const wall = (Date.now() - results.startTime) / 1000;
    const lines = files.map((f) => `  ${f.seconds.toFixed(1).padStart(6)} s  ${f.project.padEnd(8)} ${f.file}`);
    process.stdout.write(
      `\nThe ${files.length} slowest test files (the whole run: ${wall.toFixed(0)} s):\n${lines.join('\n')}\n`,
    );
  }
}

module.exports = SlowestReport;
