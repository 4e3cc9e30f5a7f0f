/**
 * The one HTML document of the console: every page is drawn into it by the browser app. It carries no data and
 * no inline script, so the Content-Security-Policy can forbid inline script altogether.
 */
export const SHELL_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>LeadChat console</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/console/assets/app.css">
<script type="module" src="/console/assets/app.js"></script>
</head>
<body>
<div id="app"><noscript>The LeadChat console needs JavaScript.</noscript></div>
</body>
</html>
`;
