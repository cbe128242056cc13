/**
 * Entry of the React live page. No <StrictMode>: it renders every component twice in
 * development on purpose, and the page's render counters are there to count real renders.
 */
import { createRoot } from 'react-dom/client';
import { App } from './app.js';

const root = document.getElementById('root');
if (root === null) throw new Error('index.html must hold <div id="root">');
createRoot(root).render(<App />);
