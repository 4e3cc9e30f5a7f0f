const path = require('node:path');

/** How many of the slowest test files a whole-suite run prints. */
const SHOWN = 10;

/** The tier each jest project belongs to (jest.config.js). */
const TIER_OF = {
  lowdb: 'fast',
  postgres: 'fast',
  'postgres-system': 'system',
  system: 'system',
  screenshots: 'system',
};

const seconds = (s) => `${s.toFixed(1).padStart(6)} s`;

/**
 * A jest reporter: after a run of a whole tier, its ten slowest test files with their projects and times, then the
 * tier's time (the whole run's, and its files' summed by project), so a file or a tier that grows slow is seen in
 * the run that made it so (docs/benchmarks.md keeps the suite's time per tier).
 */
class SlowestReport {
  constructor(globalConfig) {
    this.rootDir = globalConfig.rootDir;
  }

  onRunComplete(_contexts, results) {
    if (results.numTotalTestSuites < 20) return;
    const files = results.testResults.map((r) => ({
      file: path.relative(this.rootDir, r.testFilePath),
      project: r.displayName?.name ?? '',
      seconds: (r.perfStats.end - r.perfStats.start) / 1000,
    }));
    const slowest = [...files].sort((a, b) => b.seconds - a.seconds).slice(0, SHOWN);
    const wall = (Date.now() - results.startTime) / 1000;
    const lines = slowest.map((f) => `  ${seconds(f.seconds)}  ${f.project.padEnd(12)} ${f.file}`);
    process.stdout.write(`\nThe ${slowest.length} slowest test files:\n${lines.join('\n')}\n`);

    const byProject = new Map();
    for (const f of files) {
      const sum = byProject.get(f.project) ?? { files: 0, seconds: 0 };
      byProject.set(f.project, { files: sum.files + 1, seconds: sum.seconds + f.seconds });
    }
    const tiers = [...new Set([...byProject.keys()].map((project) => TIER_OF[project] ?? project))];
    const projects = [...byProject]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([project, sum]) => `  ${seconds(sum.seconds)}  ${project.padEnd(12)} ${sum.files} files`);
    const total = files.reduce((sum, f) => sum + f.seconds, 0);
    process.stdout.write(
      `\nThe ${tiers.join(' and ')} tier${tiers.length > 1 ? 's' : ''}: ${wall.toFixed(0)} s for the whole run, ` +
        `${results.numTotalTests} tests in ${files.length} files; the files' time summed, ${total.toFixed(0)} s:\n` +
        `${projects.join('\n')}\n`,
    );
  }
}

module.exports = SlowestReport;
