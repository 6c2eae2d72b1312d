// Vite bundles imported stylesheets into the built CSS files.
declare module '*.css';
