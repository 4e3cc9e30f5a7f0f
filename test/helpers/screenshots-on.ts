import { SCREENSHOTS_VARIABLE } from './chromium';

// The screenshots' project (test:system): the browser tests keep what they see for a human to look at.
process.env[SCREENSHOTS_VARIABLE] = '1';
